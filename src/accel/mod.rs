//! The scene's acceleration structures, in one of two shapes.
//!
//! - **Per mesh** (the default): one bottom level per mesh, shared by all of its instances and
//!   compacted after the build, and one top level over all instances.
//! - **Merged** (`--merge-instances`): one bottom level holding every instance's triangles, each
//!   instance a geometry transformed at the build, under a top level of one instance, as
//!   Mitsuba merges the shapes of a scene for OptiX: one BVH, no instance transitions, at the
//!   price of instancing (each instance's triangles are stored again).
//!
//! Either way a hit's instance is `gl_InstanceID + gl_GeometryIndexEXT` (one of the two is 0),
//! which finds its transform, mesh and material through the instance table. Meshes of
//! alpha-masked or blended materials are the only non-opaque geometry: their candidate hits go
//! through the alpha test (`alpha.glsl`) in traversal.

use glam::Mat4;

use crate::gpu::{
    build_bottom_levels, build_top_level, AccelerationStructure, BottomLevel, Buffer, BufferUsage, Context, GpuError,
    GpuResult, TlasInstance,
};
use crate::scene::{AlphaMode, GpuMeshes, Mesh, Scene};

pub struct SceneAccel {
    pub top_level: AccelerationStructure,
    _bottom_levels: Vec<AccelerationStructure>,
    _instances: Buffer,
    _transforms: Option<Buffer>,
}

/// The most instances one bottom level merges (each is a geometry of it): well under the
/// drivers' geometry limits (NVIDIA's maxGeometryCount is 2^24), and more than a merged BVH
/// is worth.
pub const MAX_MERGED_INSTANCES: usize = 1 << 20;

impl SceneAccel {
    /// The meshes whose hits are tested in traversal: alpha-masked or blended materials.
    fn is_opaque(scene: &Scene, mesh: &Mesh) -> bool {
        scene.materials[mesh.material as usize].alpha == AlphaMode::Opaque
    }

    /// `merge`: one bottom level for every instance (the module's second shape).
    pub fn build(context: &Context, scene: &Scene, meshes: &GpuMeshes, merge: bool) -> GpuResult<Self> {
        let too_many = |what: String| GpuError::InvalidUse {
            name: scene.source.display().to_string(),
            problem: what,
        };
        if scene.meshes.len() > TlasInstance::MAX_CUSTOM_INDEX as usize + 1 {
            return Err(too_many(format!(
                "{} meshes, more than the 2^24 a top level can index",
                scene.meshes.len()
            )));
        }
        let limits = &context.adapter().capabilities;
        if scene.instances.len() as u64 > limits.max_instance_count && limits.max_instance_count > 0 && !merge {
            return Err(too_many(format!(
                "{} instances, more than the device's top level takes ({})",
                scene.instances.len(),
                limits.max_instance_count
            )));
        }
        if merge && scene.triangle_count() as u64 > limits.max_primitive_count && limits.max_primitive_count > 0 {
            return Err(too_many(format!(
                "{} triangles, more than the device's {} in one bottom level: render without --merge-instances",
                scene.triangle_count(),
                limits.max_primitive_count
            )));
        }
        if merge && scene.instances.len() > MAX_MERGED_INSTANCES {
            return Err(too_many(format!(
                "{} instances, more than the {MAX_MERGED_INSTANCES} that one bottom level merges",
                scene.instances.len()
            )));
        }
        let usage = BufferUsage {
            acceleration_structure_input: true,
            ..BufferUsage::STORAGE
        };
        let (bottom_levels, instances, transforms) = if merge && !scene.instances.is_empty() {
            let (level, instance, transforms) = Self::merged(context, scene, meshes)?;
            (vec![level], vec![instance], Some(transforms))
        } else {
            let (levels, instances) = Self::per_mesh(context, scene, meshes)?;
            (levels, instances, None)
        };
        let instance_buffer = Buffer::from_slice(context, "tlas instances", &instances, usage)?;
        let top_level = build_top_level(context, "tlas", &instance_buffer, instances.len() as u32)?;
        Ok(Self {
            top_level,
            _bottom_levels: bottom_levels,
            _instances: instance_buffer,
            _transforms: transforms,
        })
    }

    /// One bottom level per mesh, and an instance of it for each scene instance.
    fn per_mesh(
        context: &Context,
        scene: &Scene,
        meshes: &GpuMeshes,
    ) -> GpuResult<(Vec<AccelerationStructure>, Vec<TlasInstance>)> {
        let opaque = |mesh: &Mesh| Self::is_opaque(scene, mesh);
        let levels: Vec<BottomLevel> = scene
            .meshes
            .iter()
            .enumerate()
            .map(|(i, mesh)| BottomLevel {
                name: format!("blas {}", mesh.name),
                geometries: vec![meshes.geometry(i, opaque(mesh))],
            })
            .collect();
        let levels = build_bottom_levels(context, &levels)?;
        let instances = scene
            .instances
            .iter()
            .map(|i| {
                let mesh = &scene.meshes[i.mesh as usize];
                TlasInstance::new(
                    i.world_from_object,
                    i.mesh,
                    levels[i.mesh as usize].address(),
                    opaque(mesh),
                )
            })
            .collect();
        Ok((levels, instances))
    }

    /// One bottom level whose geometries are the instances (geometry i: instance i, its mesh
    /// transformed at the build by the transforms returned, which must outlive the build),
    /// and the one instance of it.
    fn merged(
        context: &Context,
        scene: &Scene,
        meshes: &GpuMeshes,
    ) -> GpuResult<(AccelerationStructure, TlasInstance, Buffer)> {
        let opaque = |mesh: &Mesh| Self::is_opaque(scene, mesh);
        let rows: Vec<[f32; 12]> = scene
            .instances
            .iter()
            .map(|i| TlasInstance::new(i.world_from_object, 0, 0, true).transform)
            .collect();
        let usage = BufferUsage {
            acceleration_structure_input: true,
            ..BufferUsage::STORAGE
        };
        let transforms = Buffer::from_slice(context, "merged instance transforms", &rows, usage)?;
        let geometries = scene
            .instances
            .iter()
            .enumerate()
            .map(|(index, instance)| {
                let mesh = &scene.meshes[instance.mesh as usize];
                let mut geometry = meshes.geometry(instance.mesh as usize, opaque(mesh));
                geometry.transform_address = transforms.address() + (index * std::mem::size_of::<[f32; 12]>()) as u64;
                geometry
            })
            .collect();
        let level = build_bottom_levels(
            context,
            &[BottomLevel {
                name: "blas (merged instances)".into(),
                geometries,
            }],
        )?
        .pop()
        .expect("one bottom level was asked for");
        let all_opaque = scene.instances.iter().all(|i| opaque(&scene.meshes[i.mesh as usize]));
        let instance = TlasInstance::new(Mat4::IDENTITY, 0, level.address(), all_opaque);
        Ok((level, instance, transforms))
    }
}
