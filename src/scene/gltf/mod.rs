//! glTF 2.0 import (`.gltf` with external or embedded buffers, and `.glb`) into a `Scene`.
//!
//! Input is untrusted: the container's lengths (`container`), the JSON's shape (`lenient`
//! relaxes what is valid but the strict glTF crate refuses), every accessor's byte range
//! (`accessor`) and the node graph (cycles, and the instance count before expansion) are
//! checked before anything is read or allocated, and URIs are read only as regular files
//! inside the scene's folder (`uri`). Materials come with their textures (`materials.rs`),
//! normal-mapped meshes with tangents (`scene::tangents`), nodes with their cameras,
//! KHR_lights_punctual lights and EXT_mesh_gpu_instancing copies (`instancing`), morphed and
//! skinned meshes with their shapes deformed (`deform`). What wavetrace cannot use (points and
//! lines, animation without a time to pose it at, material parameters it
//! does not render, images it cannot decode) is skipped with a warning that names the
//! material, mesh or node.

mod accessor;
mod animation;
mod container;
mod deform;
mod instancing;
mod lenient;
mod materials;
mod meshopt;
mod uri;

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::mesh::Mode;

use super::tangents;
use super::{Camera, Instance, Material, Mesh, Projection, PunctualKind, PunctualLight, Scene, SceneError};
use instancing::CopiesByNode;
use materials::TextureImporter;
pub use uri::ImportOptions;

/// More instances than this are refused before the node graph is expanded: it is the least
/// instance count Vulkan lets a device's top-level acceleration structure have, and a shared
/// subtree (a DAG) can otherwise expand to billions.
pub const MAX_INSTANCES: u64 = (1 << 24) - 1;

pub fn import(path: &Path, options: &ImportOptions) -> Result<Scene, SceneError> {
    let bytes = crate::input::read_regular_file(path).map_err(|problem| SceneError::Io {
        path: path.to_path_buf(),
        problem,
    })?;
    import_bytes(path, &bytes, options)
}

/// Imports a scene held in memory; `path` names it in messages and anchors its relative URIs.
pub fn import_bytes(path: &Path, bytes: &[u8], options: &ImportOptions) -> Result<Scene, SceneError> {
    let mut importer = Importer {
        path: path.to_path_buf(),
        warnings: Vec::new(),
        is_glb: false,
        animated: options.time.is_some(),
        poses: HashMap::new(),
        morphed: HashMap::new(),
        skinned: HashSet::new(),
        variant: None,
    };
    let (document, blob) = importer.parse(bytes)?;
    importer.variant = importer.chosen_variant(&document, options.variant.as_deref())?;
    let mut buffers = importer.load_buffers(&document, blob, options)?;
    meshopt::decode_views(&document, &mut buffers).map_err(|problem| importer.malformed(problem))?;
    if let Some(time) = options.time {
        importer.pose(&document, &buffers, time)?;
    }
    let mut textures = TextureImporter::default();
    let materials = importer.materials(&document, &buffers, options, &mut textures);
    let mut scene = Scene {
        source: path.to_path_buf(),
        meshes: Vec::new(),
        instances: Vec::new(),
        materials,
        textures: textures.textures,
        lights: Vec::new(),
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    };
    let meshes = importer.meshes(&document, &buffers, &mut scene)?;
    let copies = instancing::node_copies(&document, &buffers).map_err(|problem| importer.malformed(problem))?;
    for (node, skipped) in &copies.skipped {
        importer.warn(format!(
            "{node}: {skipped} {} cop(ies) with a transform that is not finite (or a zero rotation); skipped",
            instancing::EXTENSION
        ));
    }
    importer.nodes(&document, &buffers, &meshes, &copies.by_node, &mut scene)?;
    drop_undeformed_shapes(&mut scene, &meshes);

    if scene.camera.is_none() {
        importer.warn("no usable perspective camera: the renderer frames the scene's bounding box".to_string());
    }
    if scene.emissive_triangle_count() == 0 && scene.lights.is_empty() {
        importer.warn(
            "no emissive triangles and no punctual lights: the image will be black unless an environment lights it"
                .to_string(),
        );
    }
    scene.warnings = importer.warnings;
    Ok(scene)
}

/// Drops the undeformed shapes of deformable primitives that no instance places (every node
/// that draws them deforms them), renumbering the instances' meshes.
fn drop_undeformed_shapes(scene: &mut Scene, converted: &Converted) {
    let shapes: HashSet<u32> = converted
        .meshes
        .iter()
        .flatten()
        .zip(converted.deformables.iter().flatten())
        .filter_map(|(&mesh, deformable)| mesh.filter(|_| deformable.is_some()))
        .collect();
    let placed: HashSet<u32> = scene.instances.iter().map(|i| i.mesh).collect();
    let mut renumbered = Vec::with_capacity(scene.meshes.len());
    let mut kept = 0;
    for index in 0..scene.meshes.len() as u32 {
        renumbered.push(kept);
        kept += u32::from(!shapes.contains(&index) || placed.contains(&index));
    }
    let mut index = 0;
    scene.meshes.retain(|_| {
        let keep = !shapes.contains(&index) || placed.contains(&index);
        index += 1;
        keep
    });
    for instance in &mut scene.instances {
        instance.mesh = renumbered[instance.mesh as usize];
    }
}

/// WebP images for textures (`lenient::prefer_webp_sources`).
const WEBP: &str = "EXT_texture_webp";

/// Extensions wavetrace reads, in whole or as the warnings of `materials` say: a file may
/// require these, and using them is not warned about. Some the glTF crate does not know
/// (KHR_mesh_quantization is read by `accessor`).
const EXTENSIONS_READ: [&str; 16] = [
    instancing::EXTENSION,
    meshopt::EXTENSION,
    meshopt::KHR_EXTENSION,
    WEBP,
    materials::CLEARCOAT,
    "KHR_lights_punctual",
    "KHR_materials_emissive_strength",
    "KHR_materials_ior",
    "KHR_materials_pbrSpecularGlossiness",
    "KHR_materials_specular",
    "KHR_materials_transmission",
    "KHR_materials_unlit",
    "KHR_materials_variants",
    "KHR_materials_volume",
    "KHR_texture_transform",
    "KHR_mesh_quantization",
];

/// One warning naming the extensions the file uses (`extensionsUsed`) that wavetrace does not
/// read, where no other warning names them: those on a material are named with the material,
/// and a texture whose image only an extension holds is named by `lenient`. Optional
/// extensions have fallbacks, so the file renders, but not always as its author saw it.
fn unread_extensions(json: &serde_json::Value) -> Option<String> {
    let named_elsewhere: Vec<&str> = ["materials", "textures"]
        .iter()
        .filter_map(|key| json.get(*key).and_then(serde_json::Value::as_array))
        .flatten()
        .filter_map(|item| item.get("extensions").and_then(serde_json::Value::as_object))
        .flat_map(|extensions| extensions.keys().map(String::as_str))
        .collect();
    let mut unread: Vec<&str> = json
        .get("extensionsUsed")
        .and_then(serde_json::Value::as_array)?
        .iter()
        .filter_map(serde_json::Value::as_str)
        .filter(|e| !EXTENSIONS_READ.contains(e) && !named_elsewhere.contains(e))
        .collect();
    unread.sort_unstable();
    unread.dedup();
    (!unread.is_empty()).then(|| {
        format!(
            "extensionsUsed names {}, which wavetrace does not read: rendered without (the fallback the file gives)",
            unread.join(", ")
        )
    })
}

/// Deserialises into the glTF crate's model a JSON field at a time, to name the element at
/// fault when the whole fails (serde's message alone says neither where nor which).
fn locate_deserialize_error(root: &serde_json::Value) -> Option<String> {
    macro_rules! try_each {
        ($key:literal, $ty:ty) => {
            if let Some(items) = root.get($key).and_then(serde_json::Value::as_array) {
                for (i, item) in items.iter().enumerate() {
                    if let Err(e) = serde_json::from_value::<$ty>(item.clone()) {
                        return Some(format!("{}[{i}]: {e}", $key));
                    }
                }
            }
        };
    }
    use gltf::json;
    try_each!("accessors", json::Accessor);
    try_each!("bufferViews", json::buffer::View);
    try_each!("buffers", json::Buffer);
    try_each!("cameras", json::Camera);
    try_each!("images", json::Image);
    try_each!("materials", json::Material);
    try_each!("meshes", json::Mesh);
    try_each!("nodes", json::Node);
    try_each!("samplers", json::texture::Sampler);
    try_each!("scenes", json::Scene);
    try_each!("textures", json::Texture);
    if let Some(asset) = root.get("asset") {
        if let Err(e) = serde_json::from_value::<json::Asset>(asset.clone()) {
            return Some(format!("asset: {e}"));
        }
    }
    if let Some(extensions) = root.get("extensions") {
        if let Err(e) = serde_json::from_value::<json::extensions::Root>(extensions.clone()) {
            return Some(format!("extensions: {e}"));
        }
    }
    None
}

struct Importer {
    path: PathBuf,
    warnings: Vec<String>,
    /// The file is a GLB (so a buffer without a URI is its binary chunk).
    is_glb: bool,
    /// Keep the animations, to pose the nodes at a time (`ImportOptions::time`).
    animated: bool,
    /// The animated nodes' poses, by node index.
    poses: HashMap<usize, animation::Pose>,
    /// Meshes morphed by a node's weights, by (glTF mesh, primitive, the weights' bits), so
    /// that nodes that morph a mesh alike share one.
    morphed: HashMap<(usize, usize, Vec<u32>), Option<u32>>,
    /// Skinned nodes already placed: a skinned mesh ignores its node's transform, so a node
    /// the graph reaches twice places it once.
    skinned: HashSet<usize>,
    /// The KHR_materials_variants variant whose materials the primitives take, by index.
    variant: Option<u32>,
}

impl Importer {
    /// The index of the variant named `name` among the file's KHR_materials_variants; an error
    /// naming the file's variants where it has none of that name. A file with variants rendered
    /// without one says which it has (at info level: the default look is the file's own).
    fn chosen_variant(&self, document: &gltf::Document, name: Option<&str>) -> Result<Option<u32>, SceneError> {
        let names: Vec<&str> = document
            .variants()
            .map_or_else(Vec::new, |v| v.map(|v| v.name()).collect());
        let Some(name) = name else {
            if !names.is_empty() {
                log::info!(
                    "{}: rendered with its default materials; its material variants (--variant): {}",
                    self.path.display(),
                    names.join(", ")
                );
            }
            return Ok(None);
        };
        match names.iter().position(|&n| n == name) {
            Some(index) => Ok(Some(index as u32)),
            None => Err(SceneError::Unsupported {
                path: self.path.clone(),
                problem: if names.is_empty() {
                    format!("no material variant {name:?}: the file has no KHR_materials_variants")
                } else {
                    format!(
                        "no material variant {name:?}; the file's variants: {}",
                        names.join(", ")
                    )
                },
            }),
        }
    }

    /// The material a primitive renders with: the chosen variant's where its mappings name
    /// one, else its own (`None`: glTF's default material). A mapping to a material the file
    /// does not have (which the glTF crate reads as the default material) is a warning, and
    /// the primitive keeps its own.
    fn primitive_material(&mut self, label: &str, primitive: &gltf::Primitive) -> Option<usize> {
        let own = primitive.material().index();
        let Some(variant) = self.variant else {
            return own;
        };
        let Some(mapping) = primitive.mappings().find(|m| m.variants().contains(&variant)) else {
            return own;
        };
        let mapped = mapping.material().index();
        if mapped.is_none() {
            self.warn(format!(
                "mesh {label}: its KHR_materials_variants mapping for the chosen variant names a material the file \
                 does not have; its own material is used"
            ));
        }
        mapped.or(own)
    }
}

fn mesh_label(mesh: &gltf::Mesh, primitive: usize) -> String {
    match mesh.name() {
        Some(name) => format!("{name}/{primitive}"),
        None => format!("{}/{primitive}", mesh.index()),
    }
}

/// A primitive's positions, and its normals, texture coordinates, tangents and colours where it
/// has them, each as long as the positions.
struct VertexAttributes {
    positions: Vec<Vec3>,
    normals: Option<Vec<Vec3>>,
    uvs: Option<Vec<Vec2>>,
    second_uvs: Option<Vec<Vec2>>,
    tangents: Option<Vec<Vec4>>,
    colors: Option<Vec<Vec4>>,
}

/// A buffer's bytes, or `None` where its URI cannot be fetched (what uses it is skipped).
type Buffers = [Option<Vec<u8>>];

/// What a node's skin does to its mesh (`Importer::skinning`).
enum Skinning {
    /// Nothing: the node has no skin, or its mesh no skinning attributes.
    None,
    /// Its skinned primitives are not drawn.
    Skip,
    /// Each joint's matrix, in the skin's order.
    Joints(Vec<Mat4>),
}

/// What placing a node reads besides the node.
struct Placing<'a> {
    converted: &'a Converted,
    copies: &'a CopiesByNode,
    /// Every node's world transform, posed (`Importer::world_transforms`).
    world: Vec<Mat4>,
    buffers: &'a Buffers,
}

/// The file's primitives as converted, by glTF mesh and primitive.
#[derive(Default)]
struct Converted {
    /// The index of each primitive's `Mesh` in the scene, `None` where it was skipped.
    meshes: Vec<Vec<Option<u32>>>,
    /// What can deform each primitive, where anything can.
    deformables: Vec<Vec<Option<deform::Deformable>>>,
}

impl Importer {
    fn warn(&mut self, message: String) {
        self.warnings.push(message);
    }

    fn malformed(&self, problem: String) -> SceneError {
        SceneError::Malformed {
            path: self.path.clone(),
            problem,
        }
    }

    fn mesh_error(&self, mesh: &str, problem: String) -> SceneError {
        SceneError::Mesh {
            path: self.path.clone(),
            mesh: mesh.to_string(),
            problem,
        }
    }

    /// The container, the JSON, the relaxations of `lenient`, and the glTF crate's model and
    /// validation, minus two of its checks: a missing POSITION `min`/`max` (many exporters
    /// omit it; wavetrace does not need it) and an accessor without a buffer view (zeros,
    /// which `accessor` reads).
    fn parse(&mut self, bytes: &[u8]) -> Result<(gltf::Document, Option<Vec<u8>>), SceneError> {
        use gltf::json::validation::{Error, Validate};
        let container = container::split(bytes).map_err(|problem| self.malformed(problem))?;
        self.is_glb = container.is_glb;
        let mut json: serde_json::Value =
            serde_json::from_slice(container.json).map_err(|e| self.malformed(format!("not valid JSON: {e}")))?;
        lenient::relax(&mut json, self.animated, &mut self.warnings).map_err(|problem| self.malformed(problem))?;
        if let Some(unread) = unread_extensions(&json) {
            self.warn(unread);
        }
        let root: gltf::json::Root = match serde_json::from_value(json.clone()) {
            Ok(root) => root,
            Err(e) => {
                let problem = locate_deserialize_error(&json).unwrap_or_else(|| e.to_string());
                return Err(self.malformed(problem));
            }
        };
        let accessor_count = root.accessors.len();
        // The crate checks a channel's sampler but not its target, whose node it then indexes
        // and whose path it unwraps unchecked.
        for (a, animation) in root.animations.iter().enumerate() {
            for (c, channel) in animation.channels.iter().enumerate() {
                let node = channel.target.node.value();
                if node >= root.nodes.len() {
                    return Err(self.malformed(format!(
                        "animations[{a}].channels[{c}] targets node {node}, but there are only {}",
                        root.nodes.len()
                    )));
                }
                if matches!(channel.target.path, gltf::json::validation::Checked::Invalid) {
                    return Err(self.malformed(format!(
                        "animations[{a}].channels[{c}].target.path is not translation, rotation, scale or weights"
                    )));
                }
            }
        }
        for (m, mesh) in root.meshes.iter().enumerate() {
            for (p, primitive) in mesh.primitives.iter().enumerate() {
                // The crate's own check of POSITION's bounds indexes the accessor list
                // unchecked and panics on a dangling index.
                let attributes = primitive.attributes.values().chain(primitive.indices.as_ref());
                if let Some(bad) = attributes.map(|a| a.value()).find(|&a| a >= accessor_count) {
                    return Err(self.malformed(format!(
                        "meshes[{m}].primitives[{p}] uses accessor {bad}, but there are only {accessor_count}"
                    )));
                }
            }
        }
        let mut problems: Vec<String> = root
            .extensions_required
            .iter()
            .filter(|e| !EXTENSIONS_READ.contains(&e.as_str()))
            .map(|e| format!("the file requires extension {e}, which wavetrace does not render"))
            .collect();
        root.validate(&root, gltf::json::Path::new, &mut |where_, error| {
            let where_ = where_().to_string();
            let tolerated = match error {
                Error::Missing => {
                    where_.ends_with(".min") || where_.ends_with(".max") || where_.ends_with(".bufferView")
                }
                // Named above, one message per extension.
                Error::Unsupported => where_.starts_with("extensionsRequired"),
                _ => false,
            };
            if tolerated {
                return;
            }
            problems.push(match error {
                Error::IndexOutOfBounds => format!("{where_}: index out of range"),
                Error::Invalid => format!("{where_}: invalid value"),
                Error::Missing => format!("{where_}: missing"),
                other => format!("{where_}: {other}"),
            });
        });
        if !problems.is_empty() {
            return Err(self.malformed(problems.join("; ")));
        }
        Ok((gltf::Document::from_json_without_validation(root), container.blob))
    }

    fn load_buffers(
        &mut self,
        document: &gltf::Document,
        mut blob: Option<Vec<u8>>,
        options: &ImportOptions,
    ) -> Result<Vec<Option<Vec<u8>>>, SceneError> {
        let mut buffers = Vec::new();
        let placeholders = meshopt::placeholder_buffers(document, self.is_glb);
        for buffer in document.buffers() {
            let index = buffer.index();
            if placeholders.contains(&index) {
                // Room that only compressed views fill (meshopt::decode_views).
                buffers.push(None);
                continue;
            }
            let error = |uri: &str, problem: String| SceneError::Buffer {
                path: self.path.clone(),
                index,
                uri: uri::short(uri),
                problem,
            };
            let (uri, data) = match buffer.source() {
                gltf::buffer::Source::Bin if self.is_glb => {
                    let data = blob.take().ok_or_else(|| {
                        error(
                            "GLB binary chunk",
                            "the GLB has no binary chunk (or a second buffer without a uri)".into(),
                        )
                    })?;
                    ("GLB binary chunk", data)
                }
                gltf::buffer::Source::Bin => {
                    self.warn(format!(
                        "buffer {index} has no uri (only a .glb's binary chunk may go without): meshes that use it are skipped"
                    ));
                    buffers.push(None);
                    continue;
                }
                gltf::buffer::Source::Uri(uri) => match uri::read(&self.path, uri, options) {
                    Ok(data) => (uri, data),
                    Err(uri::UriError::Unreadable(problem)) => return Err(error(uri, problem)),
                    Err(uri::UriError::Unfetchable(problem)) => {
                        self.warn(format!(
                            "buffer {index} ({}): {problem}; meshes that use it are skipped",
                            uri::short(uri)
                        ));
                        buffers.push(None);
                        continue;
                    }
                },
            };
            if data.len() < buffer.length() {
                return Err(error(
                    uri,
                    format!(
                        "holds {} bytes but the file declares {} (truncated?)",
                        data.len(),
                        buffer.length()
                    ),
                ));
            }
            buffers.push(Some(data));
        }
        Ok(buffers)
    }

    /// Converts every triangle primitive to a `Mesh`; returns, per (glTF mesh, primitive),
    /// the index of its `Mesh` (`None` where it was skipped) and what can deform it.
    fn meshes(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        scene: &mut Scene,
    ) -> Result<Converted, SceneError> {
        let mut default_material = None;
        let mut converted_meshes = Converted::default();
        for mesh in document.meshes() {
            let mut row = Vec::new();
            let mut deformables = Vec::new();
            for primitive in mesh.primitives() {
                let label = mesh_label(&mesh, primitive.index());
                let material = self.primitive_material(&label, &primitive);
                let uv_sets = material
                    .and_then(|i| scene.materials.get(i))
                    .map_or((0, None), Material::uv_sets);
                let converted = self.primitive(&label, &primitive, buffers, uv_sets)?;
                let Some(mut converted) = converted else {
                    row.push(None);
                    deformables.push(None);
                    continue;
                };
                converted.material = match material {
                    Some(index) => index as u32,
                    None => *default_material.get_or_insert_with(|| {
                        scene.materials.push(Material::default());
                        scene.materials.len() as u32 - 1
                    }),
                };
                let deformable = self.deformable(&label, &primitive, buffers, &converted)?;
                match self.finish(&label, converted, &scene.materials, false) {
                    Some(finished) => {
                        row.push(Some(scene.meshes.len() as u32));
                        scene.meshes.push(finished);
                        deformables.push(deformable);
                    }
                    None => {
                        row.push(None);
                        deformables.push(None);
                    }
                }
            }
            converted_meshes.meshes.push(row);
            converted_meshes.deformables.push(deformables);
        }
        Ok(converted_meshes)
    }

    /// What the mesh a primitive converted to still needs, warned about unless `quiet` (a
    /// deformed copy of a mesh warned about already): tangents for a normal texture, and at
    /// least one triangle (`None` without).
    fn finish(&mut self, label: &str, mut mesh: Mesh, materials: &[Material], quiet: bool) -> Option<Mesh> {
        let material = &materials[mesh.material as usize];
        let uv_sets = material.uv_sets();
        let missing = [
            (uv_sets.0, material.textures().next().is_some() && mesh.uvs.is_none()),
            (uv_sets.1.unwrap_or(0), uv_sets.1.is_some() && mesh.second_uvs.is_none()),
        ];
        let mut warnings = Vec::new();
        for (set, _) in missing.iter().filter(|(_, missing)| *missing) {
            warnings.push(format!(
                "mesh {label}: its material's textures read TEXCOORD_{set}, which the mesh lacks (or holds NaN); they are read at (0, 0)"
            ));
        }
        // The coat's normal texture maps through the base's tangents (KHR_materials_clearcoat).
        let normal_map = material.normal_texture.or(material.layers.clearcoat_normal);
        if let Some(normal) = normal_map.filter(|_| mesh.tangents.is_none()) {
            let second = material.reads_second_uvs(&normal);
            if !tangents::generate(&mut mesh, second) {
                warnings.push(format!(
                    "mesh {label}: its material has a normal texture but the mesh lacks TEXCOORD_{} (or MikkTSpace failed); its normal textures are ignored",
                    normal.tex_coord
                ));
            }
        }
        if mesh.indices.is_empty() {
            warnings.push(format!("mesh {label}: no triangles left; skipped"));
        }
        if !quiet {
            self.warnings.extend(warnings);
        }
        (!mesh.indices.is_empty()).then_some(mesh)
    }

    /// A primitive's morph targets and skinning attributes (JOINTS_n with WEIGHTS_n), kept with
    /// its `mesh` as converted where it has either; each as long as the mesh's positions.
    fn deformable(
        &self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &Buffers,
        mesh: &Mesh,
    ) -> Result<Option<deform::Deformable>, SceneError> {
        use gltf::Semantic;
        let vertex_count = mesh.positions.len();
        let read = |what: String, accessor: Option<gltf::Accessor>| -> Result<Option<Vec<[f32; 4]>>, SceneError> {
            let Some(accessor) = accessor else {
                return Ok(None);
            };
            let values = match accessor.dimensions().multiplicity() {
                3 => accessor::read_floats::<3>(&accessor, buffers)
                    .map(|v| v.into_iter().map(|[x, y, z]| [x, y, z, 0.0]).collect()),
                _ => accessor::read_floats::<4>(&accessor, buffers),
            }
            .map_err(|problem| self.mesh_error(label, format!("{what}: {problem}")))?;
            if values.len() != vertex_count {
                return Err(self.mesh_error(
                    label,
                    format!("{what} has {} entries but POSITION has {vertex_count}", values.len()),
                ));
            }
            Ok(Some(values))
        };
        let vec3s = |values: Option<Vec<[f32; 4]>>| {
            values.map(|v| v.into_iter().map(|[x, y, z, _]| Vec3::new(x, y, z)).collect())
        };
        let mut targets = Vec::new();
        for (index, target) in primitive.morph_targets().enumerate() {
            let what = |attribute: &str| format!("morph target {index}'s {attribute}");
            targets.push(deform::MorphTarget {
                positions: vec3s(read(what("POSITION"), target.positions())?),
                normals: vec3s(read(what("NORMAL"), target.normals())?),
                tangents: vec3s(read(what("TANGENT"), target.tangents())?),
            });
        }
        let mut joints = Vec::new();
        let mut weights = Vec::new();
        let mut sets = 0;
        while let (Some(joint_set), Some(weight_set)) = (
            primitive.get(&Semantic::Joints(sets)),
            primitive.get(&Semantic::Weights(sets)),
        ) {
            let joint_set = read(format!("JOINTS_{sets}"), Some(joint_set))?.unwrap_or_default();
            let weight_set = read(format!("WEIGHTS_{sets}"), Some(weight_set))?.unwrap_or_default();
            joints.push(joint_set);
            weights.push(weight_set);
            sets += 1;
        }
        let influences = (sets > 0).then(|| {
            let per_vertex = 4 * sets as usize;
            let interleave = |sets: &[Vec<[f32; 4]>]| -> Vec<[f32; 4]> {
                (0..vertex_count)
                    .flat_map(|v| sets.iter().map(move |set| set[v]))
                    .collect()
            };
            deform::Influences {
                // Joint indices are unsigned integers; anything else names no joint.
                joints: interleave(&joints)
                    .into_iter()
                    .flatten()
                    .map(|j| {
                        if j >= 0.0 && j.fract() == 0.0 {
                            j as u32
                        } else {
                            u32::MAX
                        }
                    })
                    .collect(),
                weights: interleave(&weights).into_iter().flatten().map(|w| w.max(0.0)).collect(),
                per_vertex,
            }
        });
        if targets.is_empty() && influences.is_none() {
            return Ok(None);
        }
        Ok(Some(deform::Deformable {
            base: mesh.clone(),
            targets,
            influences,
        }))
    }

    /// `uv_sets`: the TEXCOORD_n sets the primitive's material reads its textures at
    /// (`Material::uv_sets`), which become the mesh's `uvs` and `second_uvs`.
    fn primitive(
        &mut self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &Buffers,
        uv_sets: (u32, Option<u32>),
    ) -> Result<Option<Mesh>, SceneError> {
        let mode = primitive.mode();
        if !matches!(mode, Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
            self.warn(format!(
                "mesh {label}: primitive mode {mode:?} is not supported; skipped"
            ));
            return Ok(None);
        }
        let targets = primitive
            .morph_targets()
            .flat_map(|t| [t.positions(), t.normals(), t.tangents()])
            .flatten();
        let accessors = primitive
            .attributes()
            .map(|(_, accessor)| accessor)
            .chain(primitive.indices())
            .chain(targets);
        if let Some(buffer) = accessors
            .flat_map(|a| [a.view(), a.sparse().map(|s| s.values().view())])
            .flatten()
            .map(|view| view.buffer().index())
            .find(|&b| buffers.get(b).is_none_or(Option::is_none))
        {
            self.warn(format!(
                "mesh {label}: reads buffer {buffer}, which could not be fetched; skipped"
            ));
            return Ok(None);
        }
        let mut attributes = self.vertex_attributes(label, primitive, buffers, uv_sets)?;
        self.keep_shading_attributes(label, &mut attributes, uv_sets);
        let VertexAttributes {
            positions,
            normals,
            uvs,
            second_uvs,
            tangents,
            colors,
        } = attributes;
        let vertex_count = positions.len();
        let error = |what: &str, problem: String| self.mesh_error(label, format!("{what}: {problem}"));
        let order: Vec<u32> = match primitive.indices() {
            Some(accessor) => accessor::read_indices(&accessor, buffers).map_err(|p| error("indices", p))?,
            None => (0..vertex_count as u32).collect(),
        };
        if let Some(&bad) = order.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(self.mesh_error(
                label,
                format!("index {bad} is out of range of its {vertex_count} vertices"),
            ));
        }
        let mut indices = triangle_list(mode, &order);
        if mode == Mode::Triangles && order.len() % 3 != 0 {
            self.warn(format!(
                "mesh {label}: {} indices is not a multiple of 3; the last ones are ignored",
                order.len()
            ));
        }

        let finite = |i: u32| positions[i as usize].is_finite();
        let before = indices.len() / 3;
        indices = indices
            .chunks_exact(3)
            .filter(|t| t.iter().all(|&i| finite(i)))
            .flatten()
            .copied()
            .collect();
        let dropped = before - indices.len() / 3;
        if dropped > 0 {
            self.warn(format!(
                "mesh {label}: {dropped} triangle(s) with NaN or infinite positions skipped"
            ));
        }
        Ok(Some(Mesh {
            name: label.to_string(),
            positions,
            normals,
            uvs,
            second_uvs,
            tangents,
            colors: colors.and_then(|colors| self.base_color_multipliers(label, colors)),
            indices,
            material: 0,
        }))
    }

    /// Keeps of NORMAL, the `uv_sets`' TEXCOORDs and TANGENT what a mesh can shade with: a NaN normal
    /// would poison shading, so flat normals stand in for the whole attribute; without normals,
    /// glTF makes flat ones "and the provided tangents (if present) MUST be ignored" (a normal
    /// texture then gets tangents made from the flat normals).
    fn keep_shading_attributes(&mut self, label: &str, attributes: &mut VertexAttributes, uv_sets: (u32, Option<u32>)) {
        if let Some(normals) = &attributes.normals {
            if !normals.iter().all(|n| n.is_finite() && n.length_squared() > 0.0) {
                self.warn(format!(
                    "mesh {label}: NORMAL has zero, NaN or infinite entries; using flat normals"
                ));
                attributes.normals = None;
            }
        }
        for (set, uvs) in [
            (uv_sets.0, &mut attributes.uvs),
            (uv_sets.1.unwrap_or(0), &mut attributes.second_uvs),
        ] {
            if uvs.as_ref().is_some_and(|uvs| !uvs.iter().all(|uv| uv.is_finite())) {
                self.warnings.push(format!(
                    "mesh {label}: TEXCOORD_{set} has NaN or infinite entries; ignored"
                ));
                *uvs = None;
            }
        }
        if let Some(tangents) = &attributes.tangents {
            if !tangents.iter().all(|t| t.is_finite()) {
                attributes.tangents = None;
            } else if attributes.normals.is_none() {
                self.warn(format!(
                    "mesh {label}: TANGENT ignored, as glTF asks of a mesh without usable normals"
                ));
                attributes.tangents = None;
            }
        }
    }

    /// The vertex attribute `semantic` as vectors of `N` floats, if the primitive has it.
    fn attribute<const N: usize, V: From<[f32; N]>>(
        &self,
        label: &str,
        primitive: &gltf::Primitive,
        semantic: gltf::Semantic,
        buffers: &Buffers,
    ) -> Result<Option<Vec<V>>, SceneError> {
        let Some(accessor) = primitive.get(&semantic) else {
            return Ok(None);
        };
        let values = accessor::read_floats::<N>(&accessor, buffers)
            .map_err(|problem| self.mesh_error(label, format!("{}: {problem}", semantic.to_string())))?;
        Ok(Some(values.into_iter().map(V::from).collect()))
    }

    /// POSITION, NORMAL, the `uv_sets`' TEXCOORDs, TANGENT and COLOR_0, each as long as
    /// POSITION.
    fn vertex_attributes(
        &self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &Buffers,
        uv_sets: (u32, Option<u32>),
    ) -> Result<VertexAttributes, SceneError> {
        use gltf::Semantic;
        let positions: Vec<Vec3> = self
            .attribute::<3, _>(label, primitive, Semantic::Positions, buffers)?
            .ok_or_else(|| self.mesh_error(label, "primitive has no POSITION attribute".into()))?;
        let vertex_count = positions.len();
        let normals: Option<Vec<Vec3>> = self.attribute::<3, _>(label, primitive, Semantic::Normals, buffers)?;
        let uvs: Option<Vec<Vec2>> =
            self.attribute::<2, _>(label, primitive, Semantic::TexCoords(uv_sets.0), buffers)?;
        let second_uvs: Option<Vec<Vec2>> = match uv_sets.1 {
            Some(set) => self.attribute::<2, _>(label, primitive, Semantic::TexCoords(set), buffers)?,
            None => None,
        };
        let tangents: Option<Vec<Vec4>> = self.attribute::<4, _>(label, primitive, Semantic::Tangents, buffers)?;
        let colors = self.colors(label, primitive, buffers)?;
        let uv_name = format!("TEXCOORD_{}", uv_sets.0);
        let second_uv_name = format!("TEXCOORD_{}", uv_sets.1.unwrap_or(0));
        for (name, count) in [
            ("NORMAL", normals.as_ref().map(Vec::len)),
            (uv_name.as_str(), uvs.as_ref().map(Vec::len)),
            (second_uv_name.as_str(), second_uvs.as_ref().map(Vec::len)),
            ("TANGENT", tangents.as_ref().map(Vec::len)),
            ("COLOR_0", colors.as_ref().map(Vec::len)),
        ] {
            if let Some(count) = count.filter(|&c| c != vertex_count) {
                return Err(self.mesh_error(
                    label,
                    format!("{name} has {count} entries but POSITION has {vertex_count}"),
                ));
            }
        }
        Ok(VertexAttributes {
            positions,
            normals,
            uvs,
            second_uvs,
            tangents,
            colors,
        })
    }

    /// COLOR_0 as RGBA, VEC3 or VEC4 as the file has it (alpha 1 for VEC3).
    fn colors(
        &self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &Buffers,
    ) -> Result<Option<Vec<Vec4>>, SceneError> {
        let semantic = gltf::Semantic::Colors(0);
        let rgb = primitive
            .get(&semantic)
            .is_some_and(|accessor| accessor.dimensions() == gltf::accessor::Dimensions::Vec3);
        Ok(if rgb {
            self.attribute::<3, Vec3>(label, primitive, semantic, buffers)?
                .map(|colors| colors.into_iter().map(|c| c.extend(1.0)).collect())
        } else {
            self.attribute::<4, _>(label, primitive, semantic, buffers)?
        })
    }

    /// COLOR_0 as the base colour's multipliers: clamped to [0, 1] as the material's factors
    /// are (a NaN to 1), and `None` where every entry is 1, so that a file that writes white
    /// vertex colours costs its kernels nothing (kernel_features.rs).
    fn base_color_multipliers(&mut self, label: &str, mut colors: Vec<Vec4>) -> Option<Vec<Vec4>> {
        let mut repaired = 0;
        for color in &mut colors {
            let fixed = Vec4::select(color.is_nan_mask(), Vec4::ONE, color.clamp(Vec4::ZERO, Vec4::ONE));
            // A NaN entry compares unequal, so it counts as repaired too.
            if fixed != *color {
                repaired += 1;
                *color = fixed;
            }
        }
        if repaired > 0 {
            self.warn(format!(
                "mesh {label}: {repaired} COLOR_0 entries outside [0, 1] (or NaN); clamped"
            ));
        }
        colors.iter().any(|&c| c != Vec4::ONE).then_some(colors)
    }

    /// The poses the animations give the nodes at `time` seconds.
    fn pose(&mut self, document: &gltf::Document, buffers: &[Option<Vec<u8>>], time: f32) -> Result<(), SceneError> {
        if !time.is_finite() {
            return Err(SceneError::Unsupported {
                path: self.path.clone(),
                problem: format!("animation time {time} s is not finite"),
            });
        }
        if document.animations().len() == 0 {
            self.warn("no animations: every frame is the rest pose".to_string());
        }
        let posed = animation::poses_at(document, buffers, time).map_err(|problem| self.malformed(problem))?;
        for problem in posed.channels_without_data {
            self.warn(problem);
        }
        self.poses = posed.poses;
        Ok(())
    }

    /// Places the default scene's nodes: after counting the instances the graph expands to
    /// (refused over `MAX_INSTANCES`, with the count) and finding cycles, walked with a stack
    /// of its own so that a legal hierarchy of any depth is taken.
    /// `copies`: the EXT_mesh_gpu_instancing copies of the nodes that have them.
    fn nodes(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        converted: &Converted,
        copies: &CopiesByNode,
        scene: &mut Scene,
    ) -> Result<(), SceneError> {
        let Some(root) = document.default_scene().or_else(|| document.scenes().next()) else {
            self.warn("the file has no scene: nothing to render".to_string());
            return Ok(());
        };
        let instances_below = self.instances_below(document, &converted.meshes, copies)?;
        let roots: Vec<gltf::Node> = root.nodes().collect();
        let total: u64 = roots
            .iter()
            .map(|n| instances_below[n.index()])
            .fold(0, u64::saturating_add);
        if total > MAX_INSTANCES {
            return Err(SceneError::Unsupported {
                path: self.path.clone(),
                problem: format!(
                    "the node graph expands to {total} mesh instances (nodes shared by several parents multiply), more than a Vulkan device must take ({MAX_INSTANCES})"
                ),
            });
        }
        let placing = Placing {
            converted,
            copies,
            // Only skins' joints read them.
            world: match document.skins().len() {
                0 => Vec::new(),
                _ => self.world_transforms(document),
            },
            buffers,
        };
        let mut stack: Vec<(gltf::Node, Mat4)> = roots.into_iter().rev().map(|n| (n, Mat4::IDENTITY)).collect();
        while let Some((node, parent)) = stack.pop() {
            if let Some(world) = self.place(&node, parent, &placing, scene)? {
                stack.extend(
                    node.children()
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .map(|c| (c, world)),
                );
            }
        }
        Ok(())
    }

    /// A node's transform relative to its parent, posed where an animation moves it.
    fn local(&self, node: &gltf::Node) -> Mat4 {
        match self.poses.get(&node.index()) {
            Some(pose) => pose.local(node),
            None => Mat4::from_cols_array_2d(&node.transform().matrix()),
        }
    }

    /// Every node's world transform, posed, by node index, for the joints of skins: a node
    /// under several parents (which glTF forbids and the walk in `nodes` draws under each)
    /// takes its first parent's, and a node under none is a root.
    fn world_transforms(&self, document: &gltf::Document) -> Vec<Mat4> {
        let nodes: Vec<gltf::Node> = document.nodes().collect();
        let mut parents: Vec<Option<usize>> = vec![None; nodes.len()];
        for node in &nodes {
            for child in node.children() {
                parents[child.index()].get_or_insert(node.index());
            }
        }
        let mut world: Vec<Option<Mat4>> = vec![None; nodes.len()];
        for start in 0..nodes.len() {
            // Up to the first ancestor already known (or past the root), then down again.
            let mut chain = Vec::new();
            let mut at = Some(start);
            while let Some(index) = at.filter(|&i| world[i].is_none() && chain.len() <= nodes.len()) {
                chain.push(index);
                at = parents[index];
            }
            let mut above = at.and_then(|i| world[i]).unwrap_or(Mat4::IDENTITY);
            for &index in chain.iter().rev() {
                above *= self.local(&nodes[index]);
                world[index] = Some(above);
            }
        }
        world.into_iter().map(|w| w.unwrap_or(Mat4::IDENTITY)).collect()
    }

    /// Per node, the mesh instances its subtree holds (saturating); a cycle is an error
    /// naming a node on it.
    fn instances_below(
        &self,
        document: &gltf::Document,
        meshes: &[Vec<Option<u32>>],
        copies: &CopiesByNode,
    ) -> Result<Vec<u64>, SceneError> {
        const UNSEEN: u8 = 0;
        const OPEN: u8 = 1;
        const DONE: u8 = 2;
        let nodes: Vec<gltf::Node> = document.nodes().collect();
        let own = |node: &gltf::Node| {
            let primitives = node
                .mesh()
                .map_or(0, |m| meshes[m.index()].iter().flatten().count() as u64);
            let times = copies.get(&node.index()).map_or(1, |c| c.len() as u64);
            primitives.saturating_mul(times)
        };
        let mut state = vec![UNSEEN; nodes.len()];
        let mut count = vec![0u64; nodes.len()];
        for start in 0..nodes.len() {
            if state[start] != UNSEEN {
                continue;
            }
            // (node, whether its children have been pushed)
            let mut stack = vec![(start, false)];
            while let Some((index, expanded)) = stack.pop() {
                if expanded {
                    let below = nodes[index]
                        .children()
                        .map(|c| count[c.index()])
                        .fold(own(&nodes[index]), u64::saturating_add);
                    count[index] = below;
                    state[index] = DONE;
                    continue;
                }
                if state[index] == DONE {
                    continue;
                }
                state[index] = OPEN;
                stack.push((index, true));
                for child in nodes[index].children() {
                    match state[child.index()] {
                        OPEN => {
                            let name = node_name(&nodes[child.index()]);
                            return Err(self.malformed(format!(
                                "the node graph has a cycle through {name} (a node is its own ancestor)"
                            )));
                        }
                        UNSEEN => stack.push((child.index(), false)),
                        _ => {}
                    }
                }
            }
        }
        Ok(count)
    }

    /// Adds a node's instances, light and camera; returns its world transform, or `None`
    /// where the node and its subtree are skipped.
    fn place(
        &mut self,
        node: &gltf::Node,
        parent: Mat4,
        placing: &Placing,
        scene: &mut Scene,
    ) -> Result<Option<Mat4>, SceneError> {
        let name = node_name(node);
        let world = parent * self.local(node);
        if !world.is_finite() {
            self.warn(format!("{name}: transform is not finite; node and children skipped"));
            return Ok(None);
        }
        if let Some(mesh) = node.mesh() {
            self.place_mesh(node, &mesh, world, placing, scene)?;
        }
        if let Some(light) = node.light() {
            self.punctual_light(&name, &light, world, scene);
        }
        if let Some(camera) = node.camera() {
            self.camera(&name, &camera, world, scene);
        }
        Ok(Some(world))
    }

    /// A node's mesh: each primitive as converted, or deformed by the node's morph weights or
    /// skin into a mesh of its own (`deform`), once for every EXT_mesh_gpu_instancing copy.
    fn place_mesh(
        &mut self,
        node: &gltf::Node,
        mesh: &gltf::Mesh,
        world: Mat4,
        placing: &Placing,
        scene: &mut Scene,
    ) -> Result<(), SceneError> {
        let name = node_name(node);
        let instance_name = node
            .name()
            .map_or_else(|| format!("node {}", node.index()), str::to_string);
        let placements = match placing.copies.get(&node.index()) {
            Some(copies) => copies.iter().map(|&copy| world * copy).collect(),
            None => vec![world],
        };
        let primitives = &placing.converted.meshes[mesh.index()];
        let deformables = &placing.converted.deformables[mesh.index()];
        let weights = self.morph_weights(node, mesh, deformables);
        let skinning = match node.skin() {
            Some(skin) => self.skinning(node, &skin, deformables, placing)?,
            None => Skinning::None,
        };
        let skinned = !matches!(skinning, Skinning::None);
        // A skinned mesh is in world space: its node's transform and copies do not apply.
        let world_space = [Mat4::IDENTITY];
        for (primitive, (&converted, deformable)) in primitives.iter().zip(deformables).enumerate() {
            let label = mesh_label(mesh, primitive);
            let (drawn, transforms): (Option<u32>, &[Mat4]) =
                match deformable.as_ref().filter(|d| d.deformed_by(&weights, skinned)) {
                    None => (converted, &placements),
                    Some(deformable) if deformable.influences.is_some() && skinned => match &skinning {
                        Skinning::Joints(joints) => {
                            let label = format!("{label} skinned by {name}");
                            let skinned = self.deformed_mesh(&label, deformable, &weights, Some(joints), scene)?;
                            (skinned, &world_space)
                        }
                        _ => (None, &[]),
                    },
                    Some(deformable) => {
                        let key = (mesh.index(), primitive, weights.iter().map(|w| w.to_bits()).collect());
                        let morphed = match self.morphed.get(&key) {
                            Some(&morphed) => morphed,
                            None => {
                                let label = format!("{label} morphed");
                                let morphed = self.deformed_mesh(&label, deformable, &weights, None, scene)?;
                                self.morphed.insert(key, morphed);
                                morphed
                            }
                        };
                        (morphed, &placements)
                    }
                };
            let Some(drawn) = drawn else {
                continue;
            };
            for &world_from_object in transforms {
                scene.instances.push(Instance {
                    mesh: drawn,
                    world_from_object,
                    node: instance_name.clone(),
                });
            }
        }
        Ok(())
    }

    /// A node's morph weights: its animated ones, else its own, else its mesh's (none: the
    /// base shape). A count other than the targets' is warned about; the missing count as 0.
    fn morph_weights(
        &mut self,
        node: &gltf::Node,
        mesh: &gltf::Mesh,
        deformables: &[Option<deform::Deformable>],
    ) -> Vec<f32> {
        let weights = self
            .poses
            .get(&node.index())
            .and_then(|pose| pose.weights.clone())
            .or_else(|| node.weights().or(mesh.weights()).map(<[f32]>::to_vec))
            .unwrap_or_default();
        let targets = deformables.iter().flatten().map(|d| d.targets.len()).max().unwrap_or(0);
        if !weights.is_empty() && weights.len() != targets {
            self.warn(format!(
                "{}: {} morph weight(s) for the {targets} morph target(s) of mesh {}; the missing count as 0",
                node_name(node),
                weights.len(),
                mesh.name().map_or_else(|| mesh.index().to_string(), str::to_string)
            ));
        }
        weights
    }

    /// What a node's skin does to its mesh: nothing where the mesh has no JOINTS_0 and
    /// WEIGHTS_0; where the graph reached the node before (a skinned mesh ignores its node's
    /// transform, so it is drawn once) or a joint's matrix is not finite, its skinned
    /// primitives are not drawn.
    fn skinning(
        &mut self,
        node: &gltf::Node,
        skin: &gltf::Skin,
        deformables: &[Option<deform::Deformable>],
        placing: &Placing,
    ) -> Result<Skinning, SceneError> {
        let name = node_name(node);
        let skin_name = skin
            .name()
            .map_or_else(|| format!("skin {}", skin.index()), |n| format!("skin {n}"));
        if !deformables.iter().flatten().any(|d| d.influences.is_some()) {
            self.warn(format!(
                "{name}: its mesh has no JOINTS_0 and WEIGHTS_0 for {skin_name}; drawn unskinned"
            ));
            return Ok(Skinning::None);
        }
        if !self.skinned.insert(node.index()) {
            return Ok(Skinning::Skip);
        }
        if placing.copies.contains_key(&node.index()) {
            self.warn(format!(
                "{name}: {} copies of a skinned mesh are not drawn: a skinned mesh ignores its node's transform",
                instancing::EXTENSION
            ));
        }
        let joints = deform::joint_matrices(skin, placing.buffers, &placing.world)
            .map_err(|problem| self.malformed(format!("{skin_name} of {name}: {problem}")))?;
        if let Some(joint) = joints.iter().position(|m| !m.is_finite()) {
            self.warn(format!(
                "{name}: the matrix of joint {joint} of {skin_name} is not finite (its node's transform or inverse bind matrix); its skinned mesh is skipped"
            ));
            return Ok(Skinning::Skip);
        }
        Ok(Skinning::Joints(joints))
    }

    /// A deformable primitive morphed by `weights` and skinned by `joints` (where given) into a
    /// mesh of the scene's own: its index, or `None` where nothing of it is left to draw.
    fn deformed_mesh(
        &mut self,
        label: &str,
        deformable: &deform::Deformable,
        weights: &[f32],
        joints: Option<&[Mat4]>,
        scene: &mut Scene,
    ) -> Result<Option<u32>, SceneError> {
        let mut mesh = deformable.base.clone();
        mesh.name = label.to_string();
        deform::morph(&mut mesh, &deformable.targets, weights);
        if let (Some(joints), Some(influences)) = (joints, &deformable.influences) {
            let unweighted =
                deform::skin(&mut mesh, influences, joints).map_err(|problem| self.mesh_error(label, problem))?;
            if unweighted > 0 {
                self.warn(format!(
                    "mesh {label}: {unweighted} vertices weighted to no joint are left in the mesh's own space"
                ));
            }
        }
        let settled = deform::settle(&mut mesh);
        if settled.dropped_triangles > 0 {
            self.warn(format!(
                "mesh {label}: {} triangle(s) with NaN or infinite positions after deforming skipped",
                settled.dropped_triangles
            ));
        }
        if settled.flat_normals {
            self.warn(format!(
                "mesh {label}: normals of zero length after deforming; using flat normals"
            ));
        }
        Ok(self.finish(label, mesh, &scene.materials, true).map(|mesh| {
            scene.meshes.push(mesh);
            scene.meshes.len() as u32 - 1
        }))
    }

    /// The first usable camera renders, the others are kept for the viewer; a degenerate one
    /// (a transform that collapses a direction, a field of view outside (0, pi) or a
    /// magnification of zero, an aspect ratio that is not positive) is a warning and is not used.
    fn camera(&mut self, node: &str, camera: &gltf::Camera, world: Mat4, scene: &mut Scene) {
        let axes = [world.x_axis, world.y_axis, world.z_axis].map(|a| a.truncate());
        let determinant = glam::Mat3::from_cols(axes[0], axes[1], axes[2]).determinant();
        let (projection, znear, aspect_ratio) = match camera.projection() {
            gltf::camera::Projection::Perspective(perspective) => (
                Projection::Perspective {
                    yfov: perspective.yfov(),
                },
                perspective.znear(),
                perspective.aspect_ratio(),
            ),
            gltf::camera::Projection::Orthographic(orthographic) => (
                Projection::Orthographic {
                    xmag: orthographic.xmag(),
                    ymag: orthographic.ymag(),
                },
                orthographic.znear(),
                None,
            ),
        };
        let problem = match projection {
            Projection::Perspective { yfov } if !(yfov > 1e-6 && yfov < std::f32::consts::PI - 1e-4) => {
                Some(format!("its vertical field of view {yfov} is not between 0 and pi"))
            }
            Projection::Orthographic { xmag, ymag }
                if !(xmag.is_finite() && ymag.is_finite() && xmag != 0.0 && ymag.abs() > 1e-30) =>
            {
                Some(format!("its magnification {xmag} x {ymag} is zero or not finite"))
            }
            _ if !(determinant.abs() > 1e-12 && determinant.is_finite()) => {
                Some("its node's transform collapses a direction (a scale of 0?)".to_string())
            }
            _ => None,
        };
        if let Some(problem) = problem {
            self.warn(format!("{node}: camera ignored: {problem}"));
            return;
        }
        let projection = match projection {
            // glTF says a magnification should not be negative; a mirrored image is not what
            // such a file means, so its size is taken.
            Projection::Orthographic { xmag, ymag } if xmag < 0.0 || ymag < 0.0 => {
                self.warn(format!(
                    "{node}: orthographic camera's magnification {xmag} x {ymag} is negative; its size is used"
                ));
                Projection::Orthographic {
                    xmag: xmag.abs(),
                    ymag: ymag.abs(),
                }
            }
            other => other,
        };
        let aspect_ratio = match aspect_ratio {
            Some(a) if !(a.is_finite() && a > 0.0) => {
                self.warn(format!(
                    "{node}: camera's aspect ratio {a} is not positive; the output resolution's is used"
                ));
                None
            }
            other => other,
        };
        // glTF requires znear > 0 (>= 0 for orthographic cameras). zfar is unread: the
        // references' converter leaves Mitsuba's far_clip at 10^4, and a file's zfar is often a
        // rasteriser's depth range, too short.
        let znear = if znear.is_finite() && znear >= 0.0 {
            znear
        } else {
            self.warn(format!(
                "{node}: camera's znear {znear} is not a distance; nothing is clipped"
            ));
            0.0
        };
        let camera = Camera {
            world_from_camera: world,
            projection,
            znear,
            aspect_ratio,
        };
        match scene.camera {
            None => scene.camera = Some(camera),
            Some(_) => scene.more_cameras.push(camera),
        }
    }
}

fn node_name(node: &gltf::Node) -> String {
    node.name().map_or_else(
        || format!("node {}", node.index()),
        |n| format!("node {} ({n})", node.index()),
    )
}

impl Importer {
    /// A KHR_lights_punctual light at a node; one that cannot be rendered is a warning.
    fn punctual_light(&mut self, node: &str, light: &gltf::khr_lights_punctual::Light, world: Mat4, scene: &mut Scene) {
        use gltf::khr_lights_punctual::Kind;
        let intensity = Vec3::from_array(light.color()) * light.intensity();
        let position = world.transform_point3(Vec3::ZERO);
        let direction = world.transform_vector3(Vec3::NEG_Z).normalize_or_zero();
        if !(intensity.is_finite() && intensity.min_element() >= 0.0 && position.is_finite()) {
            self.warn(format!(
                "{node}: light with a negative or non-finite intensity or position; skipped"
            ));
            return;
        }
        let kind = match light.kind() {
            Kind::Point => PunctualKind::Point,
            Kind::Directional => PunctualKind::Directional,
            Kind::Spot {
                inner_cone_angle,
                outer_cone_angle,
            } => {
                let outer = outer_cone_angle.clamp(1e-4, std::f32::consts::FRAC_PI_2);
                let inner = inner_cone_angle.clamp(0.0, outer * 0.9999);
                if (inner, outer) != (inner_cone_angle, outer_cone_angle) {
                    self.warn(format!(
                        "{node}: spot cone angles {inner_cone_angle}, {outer_cone_angle} clamped to {inner}, {outer}"
                    ));
                }
                PunctualKind::Spot { inner, outer }
            }
        };
        if kind != PunctualKind::Point && direction == Vec3::ZERO {
            self.warn(format!("{node}: light direction degenerate (scaled to zero); skipped"));
            return;
        }
        scene.lights.push(PunctualLight {
            name: light.name().map_or_else(|| node.to_string(), str::to_string),
            kind,
            position,
            direction,
            intensity,
            range: light.range().filter(|r| r.is_finite() && *r > 0.0),
        });
    }
}

/// Strips and fans as a triangle list, keeping every triangle's winding counter-clockwise.
fn triangle_list(mode: Mode, order: &[u32]) -> Vec<u32> {
    match mode {
        Mode::TriangleStrip => (2..order.len())
            .flat_map(|i| {
                if i % 2 == 0 {
                    [order[i - 2], order[i - 1], order[i]]
                } else {
                    [order[i - 1], order[i - 2], order[i]]
                }
            })
            .collect(),
        Mode::TriangleFan => (2..order.len())
            .flat_map(|i| [order[0], order[i - 1], order[i]])
            .collect(),
        _ => order[..order.len() - order.len() % 3].to_vec(),
    }
}
