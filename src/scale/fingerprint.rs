//! What a partial render must share with the others it is merged with: the scene as imported
//! and every setting that changes a sample's value. Written into partial films as the lines
//! that went in (so that a refusal can say which differ) and their SHA-256.
//!
//! Left out, because they change the order of the film's integer additions and never a
//! sample: samples per pixel, the sample range, the tile, path slots, the schedule, the sorts,
//! shader execution reordering and the ray log. The device is left out too: parts from
//! different GPUs merge into a correct estimate, bit-identical where the GPUs compute alike.

use sha2::{Digest, Sha256};

use crate::integrator::RenderSettings;
use crate::scene::{Camera, Scene};

/// The fingerprint of a render's scene and settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// One `name value` line a setting, the scene's digest first.
    pub lines: Vec<String>,
}

impl Fingerprint {
    /// `camera`: the camera the render looks through (`Scene::camera` or one of
    /// `more_cameras`), so that parts of different cameras are not merged.
    pub fn of(scene: &Scene, camera: Option<&Camera>, settings: &RenderSettings) -> Self {
        let s = settings;
        let environment = s.environment.as_ref().map(|e| {
            let radiance = match &e.radiance {
                crate::environment::EnvironmentRadiance::Constant(c) => format!("constant {c:?}"),
                crate::environment::EnvironmentRadiance::Map(map) => {
                    let mut hash = Sha256::new();
                    hash.update(bytemuck::cast_slice(&map.texels));
                    format!("map {}x{} {}", map.width, map.height, hex(&hash.finalize()))
                }
            };
            format!("{radiance} strength {:?} rotation {:?}", e.strength, e.rotation_degrees)
        });
        let lines = vec![
            format!("scene {}", scene_digest(scene)),
            format!("camera {camera:?}"),
            format!("image {}x{}", s.width, s.height),
            format!("max_depth {} rr_depth {}", s.max_depth, s.rr_depth),
            format!("seed {} sampler {:?}", s.seed, s.sampler),
            format!("backend {:?}", s.backend),
            format!(
                "integrator {:?} strategy {:?} splat_film {:?} light_share {}",
                s.integrator, s.strategy, s.splat_film, s.bdpt_light_share
            ),
            format!("lights {:?} rebuilt {}", s.light_selection, s.rebuild_lights_every_pass),
            format!("light_culling {:?}", s.light_culling),
            format!("environment {environment:?}"),
            format!(
                "kernels general {} merged_instances {}",
                s.general_kernels, s.merge_instances
            ),
        ];
        Self { lines }
    }

    /// The SHA-256 of the lines, in hex.
    pub fn digest(&self) -> String {
        let mut hash = Sha256::new();
        for line in &self.lines {
            hash.update(line.as_bytes());
            hash.update(b"\n");
        }
        hex(&hash.finalize())
    }

    /// The lines of `self` that `other` does not have, for a refusal's message.
    pub fn differences(&self, other: &Fingerprint) -> Vec<String> {
        self.lines
            .iter()
            .zip(&other.lines)
            .filter(|(a, b)| a != b)
            .map(|(a, b)| format!("`{a}` against `{b}`"))
            .collect()
    }
}

/// The scene as the renderer sees it: geometry, instances, materials, textures, lights. Two
/// files that import to the same scene have the same digest.
fn scene_digest(scene: &Scene) -> String {
    let mut hash = Sha256::new();
    for mesh in &scene.meshes {
        hash.update(bytemuck::cast_slice(&mesh.positions));
        hash.update(bytemuck::cast_slice(mesh.normals.as_deref().unwrap_or(&[])));
        hash.update(bytemuck::cast_slice(mesh.uvs.as_deref().unwrap_or(&[])));
        hash.update(bytemuck::cast_slice(mesh.second_uvs.as_deref().unwrap_or(&[])));
        hash.update(bytemuck::cast_slice(mesh.tangents.as_deref().unwrap_or(&[])));
        hash.update(bytemuck::cast_slice(mesh.colors.as_deref().unwrap_or(&[])));
        hash.update(bytemuck::cast_slice(&mesh.indices));
        hash.update(mesh.material.to_le_bytes());
    }
    for instance in &scene.instances {
        hash.update(instance.mesh.to_le_bytes());
        hash.update(bytemuck::bytes_of(&instance.world_from_object));
    }
    hash.update(format!("{:?}{:?}", scene.materials, scene.lights).as_bytes());
    for texture in &scene.textures {
        hash.update(format!("{texture:?} {:?}", texture.sampler).as_bytes());
        for level in texture.levels.iter() {
            hash.update(level);
        }
    }
    hex(&hash.finalize())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
