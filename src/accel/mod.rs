//! The scene's acceleration structures: one bottom level per mesh (shared by all of its
//! instances, compacted after the build) and one top level over all instances. An instance's
//! custom index is its mesh's index, so a hit finds its vertices and material; the instance
//! index (`gl_InstanceID`) finds its transform. Meshes of alpha-masked or blended materials
//! are the only non-opaque geometry: their candidate hits go through the alpha test
//! (`alpha.glsl`) in traversal.

use crate::gpu::{
    build_bottom_levels, build_top_level, AccelerationStructure, Buffer, BufferUsage, Context, GpuError, GpuResult,
    TlasInstance,
};
use crate::scene::{AlphaMode, GpuMeshes, Mesh, Scene};

pub struct SceneAccel {
    pub top_level: AccelerationStructure,
    _bottom_levels: Vec<AccelerationStructure>,
    _instances: Buffer,
}

impl SceneAccel {
    /// The meshes whose hits are tested in traversal: alpha-masked or blended materials.
    fn is_opaque(scene: &Scene, mesh: &Mesh) -> bool {
        scene.materials[mesh.material as usize].alpha == AlphaMode::Opaque
    }

    pub fn build(context: &Context, scene: &Scene, meshes: &GpuMeshes) -> GpuResult<Self> {
        let opaque = |mesh: &Mesh| Self::is_opaque(scene, mesh);
        if scene.meshes.len() > TlasInstance::MAX_CUSTOM_INDEX as usize + 1 {
            return Err(GpuError::InvalidUse {
                name: scene.source.display().to_string(),
                problem: format!(
                    "{} meshes, more than the 2^24 a top level can index",
                    scene.meshes.len()
                ),
            });
        }
        let geometries: Vec<_> = scene
            .meshes
            .iter()
            .enumerate()
            .map(|(i, mesh)| (format!("blas {}", mesh.name), meshes.geometry(i, opaque(mesh))))
            .collect();
        let bottom_levels = build_bottom_levels(context, &geometries)?;
        let instances: Vec<TlasInstance> = scene
            .instances
            .iter()
            .map(|i| {
                let mesh = &scene.meshes[i.mesh as usize];
                TlasInstance::new(
                    i.world_from_object,
                    i.mesh,
                    &bottom_levels[i.mesh as usize],
                    opaque(mesh),
                )
            })
            .collect();
        let usage = BufferUsage {
            acceleration_structure_input: true,
            ..BufferUsage::STORAGE
        };
        let instance_buffer = Buffer::from_slice(context, "tlas instances", &instances, usage)?;
        let top_level = build_top_level(context, "tlas", &instance_buffer, instances.len() as u32)?;
        Ok(Self {
            top_level,
            _bottom_levels: bottom_levels,
            _instances: instance_buffer,
        })
    }
}
