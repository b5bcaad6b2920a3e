//! Scenes as plain CPU data: triangle meshes, their instances, materials and the camera,
//! imported from files (glTF 2.0 today) and later uploaded into GPU buffers.
//!
//! Conventions follow glTF and the team's reference conventions: right-handed, +Y up,
//! metres; the camera looks down its local -Z; emission is from the front face only.

mod camera;
mod error;
pub mod gltf;
mod split;
pub mod tangents;
pub mod textures;
mod upload;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec2, Vec3, Vec4};

use crate::interface::{
    LAYER_CLEARCOAT, LAYER_CLEARCOAT_NORMAL, LAYER_CLEARCOAT_ROUGHNESS, LAYER_SPECULAR, LAYER_SPECULAR_COLOR,
    LAYER_TEXTURE_ROLES, LAYER_TRANSMISSION,
};

pub use camera::RenderCamera;
pub use error::SceneError;
pub use gltf::ImportOptions;
pub use textures::{Texture, TextureRef};
pub use upload::{gpu_material, GpuMeshes, GpuScene, MeshRange};

/// One triangle mesh: a glTF primitive with its own material. A glTF mesh of several
/// primitives becomes several `Mesh`es; a mesh used by several nodes is stored once.
#[derive(Clone, Debug, Default)]
pub struct Mesh {
    /// `<glTF mesh name or index>/<primitive index>`, for messages and debug names.
    pub name: String,
    pub positions: Vec<Vec3>,
    /// Per-vertex shading normals; `None` means shade with the geometric normal.
    pub normals: Option<Vec<Vec3>>,
    /// The texture coordinates its material's textures read: TEXCOORD_n for the first n of
    /// `Material::uv_sets` (0 for an untextured material).
    pub uvs: Option<Vec<Vec2>>,
    /// Where its material's textures read two sets, the second (`Material::uv_sets`).
    pub second_uvs: Option<Vec<Vec2>>,
    /// MikkTSpace tangents (xyz) with the bitangent's sign (w), from the file or generated
    /// for normal-mapped meshes.
    pub tangents: Option<Vec<Vec4>>,
    /// COLOR_0: linear RGBA that multiplies the material's base colour (alpha 1 where the file
    /// gives RGB); `None` where the file has none or every entry is exactly 1.
    pub colors: Option<Vec<Vec4>>,
    /// Three indices per triangle, counter-clockwise seen from the front.
    pub indices: Vec<u32>,
    pub material: u32,
}

impl Mesh {
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }
}

/// A mesh placed in the world.
#[derive(Clone, Debug)]
pub struct Instance {
    pub mesh: u32,
    pub world_from_object: Mat4,
    /// The node's name, or `node <index>`.
    pub node: String,
}

impl Instance {
    /// A mirroring transform reverses the winding, so the front face flips too.
    pub fn flips_winding(&self) -> bool {
        self.world_from_object.determinant() < 0.0
    }
}

/// The glTF metallic-roughness material, with the extensions wavetrace reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Material {
    pub name: String,
    pub base_color: Vec4,
    pub metallic: f32,
    pub roughness: f32,
    /// Radiance: `emissiveFactor` x `KHR_materials_emissive_strength`.
    pub emission: Vec3,
    /// `KHR_materials_specular.specularFactor` (1 when absent).
    pub specular: f32,
    /// `KHR_materials_specular.specularColorFactor` (white when absent).
    pub specular_color: Vec3,
    /// `KHR_materials_transmission.transmissionFactor` (0 when absent).
    pub transmission: f32,
    /// `KHR_materials_ior.ior` (1.5 when absent).
    pub ior: f32,
    /// `KHR_materials_volume`'s Beer's law coefficient, -ln(attenuationColor) /
    /// attenuationDistance per unit length; zero without a volume.
    pub absorption: Vec3,
    /// `KHR_materials_clearcoat.clearcoatFactor` (0, no coat, when absent).
    pub clearcoat: f32,
    /// `KHR_materials_clearcoat.clearcoatRoughnessFactor` (0 when absent).
    pub clearcoat_roughness: f32,
    pub base_color_texture: Option<TextureRef>,
    /// Roughness in G, metalness in B.
    pub metallic_roughness_texture: Option<TextureRef>,
    pub normal_texture: Option<TextureRef>,
    pub emissive_texture: Option<TextureRef>,
    /// The textures of the layers' factors, each multiplying its factor.
    pub layers: LayerTextures,
    pub alpha: AlphaMode,
}

/// The textures glTF's extensions put on the layers' factors.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LayerTextures {
    /// `KHR_materials_specular.specularTexture`: specularFactor times its alpha.
    pub specular: Option<TextureRef>,
    /// `KHR_materials_specular.specularColorTexture` (sRGB): specularColorFactor times its RGB.
    pub specular_color: Option<TextureRef>,
    /// `KHR_materials_transmission.transmissionTexture`: transmissionFactor times its red.
    pub transmission: Option<TextureRef>,
    /// `KHR_materials_clearcoat.clearcoatTexture`: clearcoatFactor times its red.
    pub clearcoat: Option<TextureRef>,
    /// `KHR_materials_clearcoat.clearcoatRoughnessTexture`: the coat's roughness times its green.
    pub clearcoat_roughness: Option<TextureRef>,
    /// `KHR_materials_clearcoat.clearcoatNormalTexture`: the coat's own normal map (its scale in
    /// the reference), in the tangent frame of the base's.
    pub clearcoat_normal: Option<TextureRef>,
}

impl LayerTextures {
    /// Each texture with its `LAYER_` role, in the roles' order.
    pub fn by_role(&self) -> [(u32, &Option<TextureRef>); LAYER_TEXTURE_ROLES as usize] {
        [
            (LAYER_SPECULAR, &self.specular),
            (LAYER_SPECULAR_COLOR, &self.specular_color),
            (LAYER_TRANSMISSION, &self.transmission),
            (LAYER_CLEARCOAT, &self.clearcoat),
            (LAYER_CLEARCOAT_ROUGHNESS, &self.clearcoat_roughness),
            (LAYER_CLEARCOAT_NORMAL, &self.clearcoat_normal),
        ]
    }

    pub fn any(&self) -> bool {
        self.by_role().iter().any(|(_, texture)| texture.is_some())
    }
}

/// glTF's `alphaMode`: what base colour's alpha means.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum AlphaMode {
    #[default]
    Opaque,
    /// Cut out where alpha is below the cutoff, in traversal (shadows too).
    Mask(f32),
    /// Partly transparent: a ray passes with probability 1 - alpha.
    Blend,
}

impl Default for Material {
    /// glTF's default material: white, fully metallic, fully rough.
    fn default() -> Self {
        Self {
            name: "default".into(),
            base_color: Vec4::ONE,
            metallic: 1.0,
            roughness: 1.0,
            emission: Vec3::ZERO,
            specular: 1.0,
            specular_color: Vec3::ONE,
            transmission: 0.0,
            ior: 1.5,
            absorption: Vec3::ZERO,
            clearcoat: 0.0,
            clearcoat_roughness: 0.0,
            base_color_texture: None,
            metallic_roughness_texture: None,
            normal_texture: None,
            emissive_texture: None,
            layers: LayerTextures::default(),
            alpha: AlphaMode::Opaque,
        }
    }
}

impl Material {
    pub fn is_emissive(&self) -> bool {
        self.emission.max_element() > 0.0
    }

    /// The material's textures, the most visible first: what orders `uv_sets`.
    pub fn textures(&self) -> impl Iterator<Item = &TextureRef> {
        [
            &self.base_color_texture,
            &self.emissive_texture,
            &self.metallic_roughness_texture,
            &self.normal_texture,
        ]
        .into_iter()
        .chain(self.layers.by_role().map(|(_, texture)| texture))
        .flatten()
    }

    /// Whether the mesh needs tangents: a normal texture, the base's or the coat's, maps
    /// through them.
    pub fn maps_normals(&self) -> bool {
        self.normal_texture.is_some() || self.layers.clearcoat_normal.is_some()
    }

    /// The TEXCOORD_n sets a mesh of this material carries: as its `uvs`, the set of its first
    /// texture (the base colour's where it has one; 0 without textures); as its `second_uvs`,
    /// the first other set a texture reads, if any. A texture that reads a third set reads the
    /// first (the importer warns of it).
    pub fn uv_sets(&self) -> (u32, Option<u32>) {
        let first = self.textures().next().map_or(0, |t| t.tex_coord);
        let second = self.textures().map(|t| t.tex_coord).find(|&set| set != first);
        (first, second)
    }

    /// Whether `texture` (one of this material's) reads the mesh's `second_uvs`.
    pub fn reads_second_uvs(&self, texture: &TextureRef) -> bool {
        self.uv_sets().1 == Some(texture.tex_coord)
    }
}

/// A KHR_lights_punctual light placed in the world.
#[derive(Clone, Debug, PartialEq)]
pub struct PunctualLight {
    /// The node's name, for messages.
    pub name: String,
    pub kind: PunctualKind,
    pub position: Vec3,
    /// Where the light points (the node's -Z), unit length.
    pub direction: Vec3,
    /// Colour x intensity: candela for point and spot lights, lux for directional ones.
    pub intensity: Vec3,
    /// Beyond this distance the light adds nothing (glTF's recommended window falloff).
    pub range: Option<f32>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PunctualKind {
    Point,
    /// Cone angles from the axis, radians, inner < outer <= pi/2.
    Spot {
        inner: f32,
        outer: f32,
    },
    Directional,
}

/// How a camera maps the view onto the image.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Projection {
    /// A pinhole: `yfov` is the vertical field of view, radians.
    Perspective { yfov: f32 },
    /// Parallel rays along the view axis: the image is 2 `ymag` high, in scene units
    /// (glTF's orthographic camera; its `xmag` is kept, renders take the output's aspect).
    Orthographic { xmag: f32, ymag: f32 },
}

/// A glTF camera.
#[derive(Clone, Debug, PartialEq)]
pub struct Camera {
    pub world_from_camera: Mat4,
    pub projection: Projection,
    /// View depth below which the camera sees nothing (glTF's znear, Mitsuba's near_clip):
    /// what lies nearer is cut away, for camera rays and for light paths that reach the
    /// camera alike. 0: nothing is.
    pub znear: f32,
    /// The file's aspect ratio, if it gives one; renders use the output resolution's.
    pub aspect_ratio: Option<f32>,
}

#[derive(Clone, Debug)]
pub struct Scene {
    pub source: PathBuf,
    pub meshes: Vec<Mesh>,
    pub instances: Vec<Instance>,
    pub materials: Vec<Material>,
    pub textures: Vec<Texture>,
    /// KHR_lights_punctual lights, in world space.
    pub lights: Vec<PunctualLight>,
    /// `None` when the file has none; the renderer then frames the bounding box.
    pub camera: Option<Camera>,
    /// The file's other usable cameras, in node order (the viewer cycles through them).
    pub more_cameras: Vec<Camera>,
    /// What was skipped or approximated on import, each naming the mesh, node or material.
    pub warnings: Vec<String>,
}

impl Scene {
    /// Loads a scene, choosing the importer by extension (`.gltf`, `.glb`), with URIs
    /// confined to the scene's folder.
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        Self::load_with(path, &ImportOptions::default())
    }

    pub fn load_with(path: &Path, options: &ImportOptions) -> Result<Self, SceneError> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("gltf") | Some("glb") => gltf::import(path, options),
            _ => Err(SceneError::UnsupportedFormat {
                path: path.to_path_buf(),
            }),
        }
    }

    /// World-space bounds of every instance, or `None` for an empty scene.
    pub fn bounds(&self) -> Option<(Vec3, Vec3)> {
        let mut bounds: Option<(Vec3, Vec3)> = None;
        for instance in &self.instances {
            for &p in &self.meshes[instance.mesh as usize].positions {
                let w = instance.world_from_object.transform_point3(p);
                bounds = Some(match bounds {
                    None => (w, w),
                    Some((lo, hi)) => (lo.min(w), hi.max(w)),
                });
            }
        }
        bounds
    }

    /// The bounding sphere's radius, at least 1e-3 (directional lights' power over the scene).
    pub fn radius(&self) -> f32 {
        self.bounding_sphere().1
    }

    /// Centre and radius (at least 1e-3) of the sphere around the bounds, from one pass over
    /// the vertices.
    pub fn bounding_sphere(&self) -> (Vec3, f32) {
        self.bounds().map_or((Vec3::ZERO, 1e-3), |(lo, hi)| {
            ((lo + hi) * 0.5, (0.5 * (hi - lo).length()).max(1e-3))
        })
    }

    pub fn emissive_triangle_count(&self) -> usize {
        self.instances
            .iter()
            .map(|i| &self.meshes[i.mesh as usize])
            .filter(|m| self.materials[m.material as usize].is_emissive())
            .map(Mesh::triangle_count)
            .sum()
    }

    pub fn triangle_count(&self) -> usize {
        self.instances
            .iter()
            .map(|i| self.meshes[i.mesh as usize].triangle_count())
            .sum()
    }

    /// Every instance's triangles in world space, instance by instance in order, each mesh's
    /// triangles in index order.
    pub fn world_triangles(&self) -> Vec<[Vec3; 3]> {
        let mut triangles = Vec::with_capacity(self.triangle_count());
        for instance in &self.instances {
            let mesh = &self.meshes[instance.mesh as usize];
            for tri in mesh.indices.chunks_exact(3) {
                triangles.push(std::array::from_fn(|k| {
                    instance
                        .world_from_object
                        .transform_point3(mesh.positions[tri[k] as usize])
                }));
            }
        }
        triangles
    }
}
