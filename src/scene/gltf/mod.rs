//! glTF 2.0 import (`.gltf` with external or embedded buffers, and `.glb`) into a `Scene`.
//!
//! Every accessor is checked against its buffer view and buffer before it is read, so a
//! truncated `.bin` or an out-of-range accessor is an error naming the file, never a panic.
//! Materials come with their textures (`materials.rs`), normal-mapped meshes with tangents
//! (`scene::tangents`), nodes with their cameras and KHR_lights_punctual lights.
//! What wavetrace cannot use (points and lines, orthographic cameras, material parameters it
//! does not render, images it cannot decode) is skipped with a warning that names the
//! material, mesh or node.

mod materials;

use std::path::{Path, PathBuf};

use base64::Engine as _;
use glam::{Mat4, Vec2, Vec3, Vec4};
use gltf::accessor::{DataType, Dimensions};
use gltf::mesh::Mode;

use super::tangents;
use super::{Camera, Instance, Material, Mesh, PunctualKind, PunctualLight, Scene, SceneError};
use materials::TextureImporter;

/// Deeper node hierarchies than this are taken for cycles (glTF forbids cycles, but a
/// malformed file may have one, and recursion must end).
const MAX_NODE_DEPTH: usize = 256;

pub fn import(path: &Path) -> Result<Scene, SceneError> {
    let bytes = std::fs::read(path).map_err(|source| SceneError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let document = parse(path, &bytes)?;
    let mut importer = Importer {
        path: path.to_path_buf(),
        warnings: Vec::new(),
    };
    let buffers = importer.load_buffers(&document)?;
    let mut textures = TextureImporter::default();
    let materials = importer.materials(&document, &buffers, &mut textures);
    let mut scene = Scene {
        source: path.to_path_buf(),
        meshes: Vec::new(),
        instances: Vec::new(),
        materials,
        textures: textures.textures,
        lights: Vec::new(),
        camera: None,
        warnings: Vec::new(),
    };
    let meshes = importer.meshes(&document, &buffers, &mut scene)?;
    importer.nodes(&document, &meshes, &mut scene)?;

    if scene.camera.is_none() {
        importer.warn("no perspective camera: the renderer frames the scene's bounding box".to_string());
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

/// Parses and validates the JSON. Validation is the glTF crate's, with two changes: accessor
/// indices of primitive attributes are checked first (the crate's own check of POSITION's
/// bounds indexes the accessor list unchecked and panics on a dangling index), and a missing
/// POSITION `min`/`max`, which many exporters omit and wavetrace does not need, is accepted.
fn parse(path: &Path, bytes: &[u8]) -> Result<gltf::Gltf, SceneError> {
    use gltf::json::validation::{Error, Validate};
    let malformed = |problem: String| SceneError::Malformed {
        path: path.to_path_buf(),
        problem,
    };
    let document = gltf::Gltf::from_slice_without_validation(bytes).map_err(|e| malformed(e.to_string()))?;
    let root = document.as_json();
    let accessor_count = root.accessors.len();
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, primitive) in mesh.primitives.iter().enumerate() {
            let attributes = primitive.attributes.values().chain(primitive.indices.as_ref());
            if let Some(bad) = attributes.map(|a| a.value()).find(|&a| a >= accessor_count) {
                return Err(malformed(format!(
                    "meshes[{m}].primitives[{p}] uses accessor {bad}, but there are only {accessor_count}"
                )));
            }
        }
    }
    let mut problems = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |where_, error| {
        let where_ = where_().to_string();
        let optional_bounds = matches!(error, Error::Missing) && (where_.ends_with(".min") || where_.ends_with(".max"));
        if !optional_bounds {
            problems.push(format!("{where_}: {error}"));
        }
    });
    if !problems.is_empty() {
        return Err(malformed(problems.join("; ")));
    }
    Ok(document)
}

struct Importer {
    path: PathBuf,
    warnings: Vec<String>,
}

fn mesh_label(mesh: &gltf::Mesh, primitive: usize) -> String {
    match mesh.name() {
        Some(name) => format!("{name}/{primitive}"),
        None => format!("mesh {}/{primitive}", mesh.index()),
    }
}

impl Importer {
    fn warn(&mut self, message: String) {
        log::warn!("{}: {message}", self.path.display());
        self.warnings.push(message);
    }

    fn mesh_error(&self, mesh: &str, problem: String) -> SceneError {
        SceneError::Mesh {
            path: self.path.clone(),
            mesh: mesh.to_string(),
            problem,
        }
    }

    fn load_buffers(&self, document: &gltf::Gltf) -> Result<Vec<Vec<u8>>, SceneError> {
        let mut buffers = Vec::new();
        for buffer in document.buffers() {
            let index = buffer.index();
            let (uri, data) = match buffer.source() {
                gltf::buffer::Source::Bin => {
                    let blob = document.blob.clone().ok_or_else(|| SceneError::Buffer {
                        path: self.path.clone(),
                        index,
                        uri: "GLB binary chunk".into(),
                        problem: "the file has no binary chunk".into(),
                    })?;
                    ("GLB binary chunk".to_string(), blob)
                }
                gltf::buffer::Source::Uri(uri) => (uri.to_string(), self.read_uri(index, uri)?),
            };
            if data.len() < buffer.length() {
                return Err(SceneError::Buffer {
                    path: self.path.clone(),
                    index,
                    uri,
                    problem: format!(
                        "holds {} bytes but the file declares {} (truncated?)",
                        data.len(),
                        buffer.length()
                    ),
                });
            }
            buffers.push(data);
        }
        Ok(buffers)
    }

    fn read_uri(&self, index: usize, uri: &str) -> Result<Vec<u8>, SceneError> {
        let error = |problem: String| SceneError::Buffer {
            path: self.path.clone(),
            index,
            uri: short(uri),
            problem,
        };
        if let Some(rest) = uri.strip_prefix("data:") {
            let (_, payload) = rest
                .split_once(";base64,")
                .ok_or_else(|| error("only base64 data URIs are supported".into()))?;
            return base64::engine::general_purpose::STANDARD
                .decode(payload)
                .map_err(|e| error(format!("bad base64: {e}")));
        }
        if uri.contains("://") {
            return Err(error("only relative file paths and data URIs are supported".into()));
        }
        let file = self
            .path
            .parent()
            .unwrap_or(Path::new("."))
            .join(uri.replace("%20", " "));
        std::fs::read(&file).map_err(|e| error(format!("cannot read {}: {e}", file.display())))
    }

    /// Checks that `accessor` reads only bytes its view and buffer hold, and has the type
    /// that `what` needs.
    fn check_accessor(
        &self,
        mesh: &str,
        what: &str,
        accessor: &gltf::Accessor,
        buffers: &[Vec<u8>],
        types: &[(DataType, Dimensions)],
    ) -> Result<(), SceneError> {
        let index = accessor.index();
        if !types.contains(&(accessor.data_type(), accessor.dimensions())) {
            return Err(self.mesh_error(
                mesh,
                format!(
                    "{what} accessor {index} is {:?} {:?}, expected one of {types:?}",
                    accessor.dimensions(),
                    accessor.data_type()
                ),
            ));
        }
        if accessor.sparse().is_some() {
            return Err(SceneError::Unsupported {
                path: self.path.clone(),
                problem: format!("mesh {mesh}: sparse accessor {index} ({what}) is not supported"),
            });
        }
        let Some(view) = accessor.view() else {
            return Err(self.mesh_error(mesh, format!("{what} accessor {index} has no buffer view")));
        };
        let element = accessor.size();
        let stride = view.stride().unwrap_or(element);
        let count = accessor.count();
        // glTF requires both; the glTF crate's readers assume them (and underflow without).
        if count == 0 {
            return Err(self.mesh_error(mesh, format!("{what} accessor {index} has a count of 0")));
        }
        if stride < element {
            return Err(self.mesh_error(
                mesh,
                format!(
                    "buffer view {} has a stride of {stride} bytes, less than its {element}-byte elements",
                    view.index()
                ),
            ));
        }
        let needed = stride
            .checked_mul(count - 1)
            .and_then(|n| n.checked_add(accessor.offset() + element))
            .unwrap_or(usize::MAX);
        if needed > view.length() {
            return Err(self.mesh_error(
                mesh,
                format!(
                    "{what} accessor {index} reads {needed} bytes, past the end of buffer view {} ({} bytes)",
                    view.index(),
                    view.length()
                ),
            ));
        }
        let buffer_length = buffers[view.buffer().index()].len();
        if view.offset() + view.length() > buffer_length {
            return Err(self.mesh_error(
                mesh,
                format!(
                    "buffer view {} ends at byte {}, past the end of buffer {} ({buffer_length} bytes)",
                    view.index(),
                    view.offset() + view.length(),
                    view.buffer().index()
                ),
            ));
        }
        Ok(())
    }

    /// Converts every triangle primitive to a `Mesh`; returns, per (glTF mesh, primitive),
    /// the index of its `Mesh`, or `None` where it was skipped.
    fn meshes(
        &mut self,
        document: &gltf::Gltf,
        buffers: &[Vec<u8>],
        scene: &mut Scene,
    ) -> Result<Vec<Vec<Option<u32>>>, SceneError> {
        let mut default_material = None;
        let mut table = Vec::new();
        for mesh in document.meshes() {
            let mut row = Vec::new();
            for primitive in mesh.primitives() {
                let label = mesh_label(&mesh, primitive.index());
                let converted = self.primitive(&label, &primitive, buffers)?;
                let Some(mut converted) = converted else {
                    row.push(None);
                    continue;
                };
                converted.material = match primitive.material().index() {
                    Some(index) => index as u32,
                    None => *default_material.get_or_insert_with(|| {
                        scene.materials.push(Material::default());
                        scene.materials.len() as u32 - 1
                    }),
                };
                let normal_mapped = scene.materials[converted.material as usize].normal_texture.is_some();
                if normal_mapped && converted.tangents.is_none() && !tangents::generate(&mut converted) {
                    self.warn(format!(
                        "mesh {label}: its material has a normal texture but the mesh lacks NORMAL or TEXCOORD_0 (or MikkTSpace failed); the normal texture is ignored"
                    ));
                }
                if converted.indices.is_empty() {
                    self.warn(format!("mesh {label}: no triangles left; skipped"));
                    row.push(None);
                    continue;
                }
                row.push(Some(scene.meshes.len() as u32));
                scene.meshes.push(converted);
            }
            table.push(row);
        }
        Ok(table)
    }

    /// Checks every accessor a primitive uses against its view and buffer, and its type,
    /// before the glTF crate's readers (which panic on some broken accessors) see it.
    fn check_attributes(
        &self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &[Vec<u8>],
    ) -> Result<(), SceneError> {
        let positions_accessor = primitive
            .get(&gltf::Semantic::Positions)
            .ok_or_else(|| self.mesh_error(label, "primitive has no POSITION attribute".into()))?;
        let float3 = [(DataType::F32, Dimensions::Vec3)];
        self.check_accessor(label, "POSITION", &positions_accessor, buffers, &float3)?;
        let normals_accessor = primitive.get(&gltf::Semantic::Normals);
        if let Some(accessor) = &normals_accessor {
            self.check_accessor(label, "NORMAL", accessor, buffers, &float3)?;
        }
        let uv_types = [
            (DataType::F32, Dimensions::Vec2),
            (DataType::U8, Dimensions::Vec2),
            (DataType::U16, Dimensions::Vec2),
        ];
        let uvs_accessor = primitive.get(&gltf::Semantic::TexCoords(0));
        if let Some(accessor) = &uvs_accessor {
            self.check_accessor(label, "TEXCOORD_0", accessor, buffers, &uv_types)?;
        }
        let tangents_accessor = primitive.get(&gltf::Semantic::Tangents);
        if let Some(accessor) = &tangents_accessor {
            self.check_accessor(
                label,
                "TANGENT",
                accessor,
                buffers,
                &[(DataType::F32, Dimensions::Vec4)],
            )?;
        }
        if let Some(accessor) = primitive.indices() {
            let index_types = [
                (DataType::U8, Dimensions::Scalar),
                (DataType::U16, Dimensions::Scalar),
                (DataType::U32, Dimensions::Scalar),
            ];
            self.check_accessor(label, "indices", &accessor, buffers, &index_types)?;
        }

        Ok(())
    }

    fn primitive(
        &mut self,
        label: &str,
        primitive: &gltf::Primitive,
        buffers: &[Vec<u8>],
    ) -> Result<Option<Mesh>, SceneError> {
        let mode = primitive.mode();
        if !matches!(mode, Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan) {
            self.warn(format!(
                "mesh {label}: primitive mode {mode:?} is not supported; skipped"
            ));
            return Ok(None);
        }
        self.check_attributes(label, primitive, buffers)?;
        let reader = primitive.reader(|buffer| buffers.get(buffer.index()).map(Vec::as_slice));
        let positions: Vec<Vec3> = reader
            .read_positions()
            .ok_or_else(|| self.mesh_error(label, "POSITION could not be read".into()))?
            .map(Vec3::from_array)
            .collect();
        let vertex_count = positions.len();
        let normals: Option<Vec<Vec3>> = reader.read_normals().map(|n| n.map(Vec3::from_array).collect());
        let uvs: Option<Vec<Vec2>> = reader
            .read_tex_coords(0)
            .map(|t| t.into_f32().map(Vec2::from_array).collect());
        let tangents: Option<Vec<Vec4>> = reader.read_tangents().map(|t| t.map(Vec4::from_array).collect());
        for (name, count) in [
            ("NORMAL", normals.as_ref().map(Vec::len)),
            ("TEXCOORD_0", uvs.as_ref().map(Vec::len)),
            ("TANGENT", tangents.as_ref().map(Vec::len)),
        ] {
            if let Some(count) = count.filter(|&c| c != vertex_count) {
                return Err(self.mesh_error(
                    label,
                    format!("{name} has {count} entries but POSITION has {vertex_count}"),
                ));
            }
        }
        let order: Vec<u32> = match reader.read_indices() {
            Some(indices) => indices.into_u32().collect(),
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
        let normals = normals.map(|normals| {
            // A NaN normal would poison shading; the geometric normal is the safe stand-in.
            if normals.iter().all(|n| n.is_finite() && n.length_squared() > 0.0) {
                Some(normals)
            } else {
                self.warn(format!(
                    "mesh {label}: NORMAL has zero, NaN or infinite entries; using flat normals"
                ));
                None
            }
        });
        Ok(Some(Mesh {
            name: label.to_string(),
            positions,
            normals: normals.flatten(),
            uvs,
            tangents: tangents.filter(|t| t.iter().all(|t| t.is_finite())),
            indices,
            material: 0,
        }))
    }

    fn nodes(
        &mut self,
        document: &gltf::Gltf,
        meshes: &[Vec<Option<u32>>],
        scene: &mut Scene,
    ) -> Result<(), SceneError> {
        let Some(root) = document.default_scene().or_else(|| document.scenes().next()) else {
            self.warn("the file has no scene: nothing to render".to_string());
            return Ok(());
        };
        for node in root.nodes() {
            self.visit(&node, Mat4::IDENTITY, 0, meshes, scene)?;
        }
        Ok(())
    }

    fn visit(
        &mut self,
        node: &gltf::Node,
        parent: Mat4,
        depth: usize,
        meshes: &[Vec<Option<u32>>],
        scene: &mut Scene,
    ) -> Result<(), SceneError> {
        let name = node
            .name()
            .map_or_else(|| format!("node {}", node.index()), str::to_string);
        if depth > MAX_NODE_DEPTH {
            return Err(SceneError::Malformed {
                path: self.path.clone(),
                problem: format!("node hierarchy deeper than {MAX_NODE_DEPTH} at {name} (a cycle?)"),
            });
        }
        let local = Mat4::from_cols_array_2d(&node.transform().matrix());
        let world = parent * local;
        if !world.is_finite() {
            self.warn(format!("{name}: transform is not finite; node and children skipped"));
            return Ok(());
        }
        if let Some(mesh) = node.mesh() {
            for &converted in meshes[mesh.index()].iter().flatten() {
                scene.instances.push(Instance {
                    mesh: converted,
                    world_from_object: world,
                    node: name.clone(),
                });
            }
        }
        if let Some(light) = node.light() {
            self.punctual_light(&name, &light, world, scene);
        }
        if let Some(camera) = node.camera() {
            match camera.projection() {
                gltf::camera::Projection::Perspective(p) if scene.camera.is_none() => {
                    scene.camera = Some(Camera {
                        world_from_camera: world,
                        yfov: p.yfov(),
                        aspect_ratio: p.aspect_ratio(),
                    });
                }
                gltf::camera::Projection::Perspective(_) => {}
                gltf::camera::Projection::Orthographic(_) => {
                    self.warn(format!("{name}: orthographic cameras are not supported; ignored"))
                }
            }
        }
        for child in node.children() {
            self.visit(&child, world, depth + 1, meshes, scene)?;
        }
        Ok(())
    }
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

/// A URI for an error message: data URIs can be megabytes long.
fn short(uri: &str) -> String {
    if uri.len() > 64 {
        format!("{}…", &uri[..uri.char_indices().nth(60).map_or(uri.len(), |(i, _)| i)])
    } else {
        uri.to_string()
    }
}
