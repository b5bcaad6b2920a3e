//! Hardware ray-tracing acceleration structures: bottom levels over triangle meshes
//! (built, then compacted) and a top level over instances. Plain-data inputs, so that the
//! scene code above never touches Vulkan structures.

use std::sync::Arc;

use ash::vk;
use bytemuck::{Pod, Zeroable};
use glam::Mat4;

use super::buffer::{Buffer, BufferUsage, MemoryLocation};
use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};

/// One triangle mesh on the GPU: float3 positions, u32 indices.
#[derive(Clone, Copy, Debug)]
pub struct TriangleGeometry {
    pub vertex_address: u64,
    pub vertex_count: u32,
    pub index_address: u64,
    pub triangle_count: u32,
    /// Every hit counts; else each candidate hit is tested (any-hit shaders, ray-query
    /// candidates), once per triangle and ray.
    pub opaque: bool,
    /// A `TransformMatrixKHR` (row-major 3x4) the build applies to the positions, or 0.
    pub transform_address: u64,
}

/// One bottom level to build: its name and its geometries (`gl_GeometryIndexEXT` in order).
pub struct BottomLevel {
    pub name: String,
    pub geometries: Vec<TriangleGeometry>,
}

/// One instance of the top level, laid out as `VkAccelerationStructureInstanceKHR`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Pod, Zeroable)]
pub struct TlasInstance {
    /// Object to world, row-major 3x4.
    pub transform: [f32; 12],
    /// Custom index (low 24 bits) and visibility mask (high 8 bits).
    pub custom_index_and_mask: u32,
    /// Shader binding table offset (low 24 bits) and instance flags (high 8 bits).
    pub sbt_offset_and_flags: u32,
    pub blas_address: u64,
}

impl TlasInstance {
    /// Largest custom index: 24 bits.
    pub const MAX_CUSTOM_INDEX: u32 = (1 << 24) - 1;

    /// `opaque`: force every hit of the instance opaque; else its geometry's flags decide.
    /// `blas_address`: the bottom level's `AccelerationStructure::address`.
    pub fn new(world_from_object: Mat4, custom_index: u32, blas_address: u64, opaque: bool) -> Self {
        let rows = world_from_object.transpose().to_cols_array();
        let mut transform = [0.0; 12];
        transform.copy_from_slice(&rows[..12]);
        // Facing is decided in our shaders (emission is front-face only, mirrored instances
        // flip it), so traversal must never cull.
        let mut flags = vk::GeometryInstanceFlagsKHR::TRIANGLE_FACING_CULL_DISABLE;
        if opaque {
            flags |= vk::GeometryInstanceFlagsKHR::FORCE_OPAQUE;
        }
        Self {
            transform,
            custom_index_and_mask: (custom_index & Self::MAX_CUSTOM_INDEX) | (0xff << 24),
            sbt_offset_and_flags: (flags.as_raw() & 0xff) << 24,
            blas_address,
        }
    }
}

pub struct AccelerationStructure {
    shared: Arc<Shared>,
    raw: vk::AccelerationStructureKHR,
    _storage: Buffer,
    address: u64,
}

impl AccelerationStructure {
    /// The address shaders turn into an `accelerationStructureEXT`.
    pub fn address(&self) -> u64 {
        self.address
    }

    fn create(context: &Context, name: &str, kind: vk::AccelerationStructureTypeKHR, size: u64) -> GpuResult<Self> {
        let shared = &context.shared;
        let loader = shared.acceleration_structure();
        let usage = BufferUsage {
            acceleration_structure_storage: true,
            ..BufferUsage::STORAGE
        };
        let storage = Buffer::new(
            context,
            &format!("{name} (storage)"),
            size,
            usage,
            MemoryLocation::GpuOnly,
        )?;
        let info = vk::AccelerationStructureCreateInfoKHR::default()
            .buffer(storage.raw)
            .size(size)
            .ty(kind);
        // SAFETY: the storage buffer has AS storage usage and outlives the structure (field order).
        let raw =
            unsafe { loader.create_acceleration_structure(&info, None) }.vk("vkCreateAccelerationStructureKHR")?;
        let address_info = vk::AccelerationStructureDeviceAddressInfoKHR::default().acceleration_structure(raw);
        // SAFETY: `raw` was just created.
        let address = unsafe { loader.get_acceleration_structure_device_address(&address_info) };
        shared.set_name(raw, name);
        Ok(Self {
            shared: Arc::clone(shared),
            raw,
            _storage: storage,
            address,
        })
    }
}

impl Drop for AccelerationStructure {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the GPU work that uses a structure before dropping it.
        unsafe {
            self.shared
                .acceleration_structure()
                .destroy_acceleration_structure(self.raw, None)
        };
    }
}

fn scratch_buffer(context: &Context, name: &str, size: u64) -> GpuResult<(Buffer, u64)> {
    let alignment = u64::from(context.shared.adapter.capabilities.scratch_alignment.max(1));
    let buffer = Buffer::gpu_storage(context, name, size + alignment)?;
    let address = buffer.address().div_ceil(alignment) * alignment;
    Ok((buffer, address))
}

/// Sizes a build of `primitive_counts` per geometry, creates its structure and aligned
/// scratch, and points `build` at both.
fn prepare_build<'a>(
    context: &Context,
    name: &str,
    kind: vk::AccelerationStructureTypeKHR,
    build: vk::AccelerationStructureBuildGeometryInfoKHR<'a>,
    primitive_counts: &[u32],
) -> GpuResult<(
    vk::AccelerationStructureBuildGeometryInfoKHR<'a>,
    AccelerationStructure,
    Buffer,
)> {
    let loader = context.shared.acceleration_structure();
    let mut sizes = vk::AccelerationStructureBuildSizesInfoKHR::default();
    // SAFETY: a size query over plain-data descriptions.
    unsafe {
        loader.get_acceleration_structure_build_sizes(
            vk::AccelerationStructureBuildTypeKHR::DEVICE,
            &build,
            primitive_counts,
            &mut sizes,
        )
    };
    let structure = AccelerationStructure::create(context, name, kind, sizes.acceleration_structure_size)?;
    let (scratch, scratch_address) =
        scratch_buffer(context, &format!("{name} (build scratch)"), sizes.build_scratch_size)?;
    let build = build
        .dst_acceleration_structure(structure.raw)
        .scratch_data(vk::DeviceOrHostAddressKHR {
            device_address: scratch_address,
        });
    Ok((build, structure, scratch))
}

fn triangles_geometry(geometry: &TriangleGeometry) -> vk::AccelerationStructureGeometryKHR<'static> {
    let triangles = vk::AccelerationStructureGeometryTrianglesDataKHR::default()
        .vertex_format(vk::Format::R32G32B32_SFLOAT)
        .vertex_data(vk::DeviceOrHostAddressConstKHR {
            device_address: geometry.vertex_address,
        })
        .vertex_stride(12)
        .max_vertex(geometry.vertex_count.saturating_sub(1))
        .index_type(vk::IndexType::UINT32)
        .index_data(vk::DeviceOrHostAddressConstKHR {
            device_address: geometry.index_address,
        })
        .transform_data(vk::DeviceOrHostAddressConstKHR {
            device_address: geometry.transform_address,
        });
    vk::AccelerationStructureGeometryKHR::default()
        .geometry_type(vk::GeometryTypeKHR::TRIANGLES)
        .geometry(vk::AccelerationStructureGeometryDataKHR { triangles })
        .flags(if geometry.opaque {
            vk::GeometryFlagsKHR::OPAQUE
        } else {
            // A stochastic test must see each candidate once.
            vk::GeometryFlagsKHR::NO_DUPLICATE_ANY_HIT_INVOCATION
        })
}

/// Builds the bottom levels, then compacts each (the compacted copies are typically half the
/// size, which matters for the millions of triangles of big scenes).
pub fn build_bottom_levels(context: &Context, levels: &[BottomLevel]) -> GpuResult<Vec<AccelerationStructure>> {
    if levels.is_empty() {
        return Ok(Vec::new());
    }
    let shared = &context.shared;
    let loader = shared.acceleration_structure();
    let mut built = Vec::new();
    let mut scratches = Vec::new();
    let mut commands = CommandBuffer::new(context, "build bottom levels")?;
    commands.begin(context)?;
    let pool_info = vk::QueryPoolCreateInfo::default()
        .query_type(vk::QueryType::ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR)
        .query_count(levels.len() as u32);
    // SAFETY: plain object creation; destroyed at the end of this function after the waits.
    let pool = unsafe { shared.device.create_query_pool(&pool_info, None) }.vk("vkCreateQueryPool")?;
    let result = (|| {
        // SAFETY: recording state; the pool was just created.
        unsafe {
            shared
                .device
                .cmd_reset_query_pool(commands.raw, pool, 0, levels.len() as u32)
        };
        commands.build_input_barrier();
        for level in levels {
            let geometry_info: Vec<_> = level.geometries.iter().map(triangles_geometry).collect();
            let counts: Vec<u32> = level.geometries.iter().map(|g| g.triangle_count).collect();
            let build = vk::AccelerationStructureBuildGeometryInfoKHR::default()
                .ty(vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL)
                .flags(
                    vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE
                        | vk::BuildAccelerationStructureFlagsKHR::ALLOW_COMPACTION,
                )
                .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
                .geometries(&geometry_info);
            let (build, structure, scratch) = prepare_build(
                context,
                &level.name,
                vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
                build,
                &counts,
            )?;
            let ranges: Vec<_> = counts
                .iter()
                .map(|&count| vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(count))
                .collect();
            // SAFETY: inputs are device addresses of live buffers with AS input usage (caller),
            // scratch is aligned and sized from the query above.
            unsafe { loader.cmd_build_acceleration_structures(commands.raw, &[build], &[&ranges]) };
            built.push(structure);
            scratches.push(scratch);
        }
        commands.acceleration_structure_barrier();
        let raws: Vec<_> = built.iter().map(|s| s.raw).collect();
        // SAFETY: the structures were built above, with ALLOW_COMPACTION.
        unsafe {
            loader.cmd_write_acceleration_structures_properties(
                commands.raw,
                &raws,
                vk::QueryType::ACCELERATION_STRUCTURE_COMPACTED_SIZE_KHR,
                pool,
                0,
            )
        };
        commands.end()?;
        commands.submit_and_wait(context)?;
        drop(scratches);

        let mut compacted_sizes = vec![0u64; levels.len()];
        // SAFETY: the queries were written by the submission waited for above.
        unsafe {
            shared.device.get_query_pool_results(
                pool,
                0,
                &mut compacted_sizes,
                vk::QueryResultFlags::TYPE_64 | vk::QueryResultFlags::WAIT,
            )
        }
        .vk("vkGetQueryPoolResults")?;

        compact(context, levels, &built, &compacted_sizes)
    })();
    // SAFETY: every submission that used the pool has been waited for (or never happened).
    drop(commands);
    unsafe { shared.device.destroy_query_pool(pool, None) };
    result
}

/// Copies each built bottom level into one of its compacted size.
fn compact(
    context: &Context,
    levels: &[BottomLevel],
    built: &[AccelerationStructure],
    compacted_sizes: &[u64],
) -> GpuResult<Vec<AccelerationStructure>> {
    let loader = context.shared.acceleration_structure();
    let mut compacted = Vec::new();
    let mut copies = CommandBuffer::new(context, "compact bottom levels")?;
    copies.begin(context)?;
    for (level, (source, &size)) in levels.iter().zip(built.iter().zip(compacted_sizes)) {
        let target = AccelerationStructure::create(
            context,
            &level.name,
            vk::AccelerationStructureTypeKHR::BOTTOM_LEVEL,
            size,
        )?;
        let copy = vk::CopyAccelerationStructureInfoKHR::default()
            .src(source.raw)
            .dst(target.raw)
            .mode(vk::CopyAccelerationStructureModeKHR::COMPACT);
        // SAFETY: the source is built; the target has the compacted size the driver reported.
        unsafe { loader.cmd_copy_acceleration_structure(copies.raw, &copy) };
        compacted.push(target);
    }
    copies.acceleration_structure_barrier();
    copies.end()?;
    copies.submit_and_wait(context)?;
    Ok(compacted)
}

/// Builds the top level over `count` `TlasInstance`s stored in `instances` (a buffer with
/// acceleration-structure input usage).
pub fn build_top_level(
    context: &Context,
    name: &str,
    instances: &Buffer,
    count: u32,
) -> GpuResult<AccelerationStructure> {
    if instances.size() < u64::from(count) * std::mem::size_of::<TlasInstance>() as u64 {
        return Err(GpuError::InvalidUse {
            name: instances.name().into(),
            problem: format!("too small for {count} instances"),
        });
    }
    let loader = context.shared.acceleration_structure();
    let instances_data = vk::AccelerationStructureGeometryInstancesDataKHR::default()
        .array_of_pointers(false)
        .data(vk::DeviceOrHostAddressConstKHR {
            device_address: instances.address(),
        });
    let geometry = [vk::AccelerationStructureGeometryKHR::default()
        .geometry_type(vk::GeometryTypeKHR::INSTANCES)
        .geometry(vk::AccelerationStructureGeometryDataKHR {
            instances: instances_data,
        })];
    let build = vk::AccelerationStructureBuildGeometryInfoKHR::default()
        .ty(vk::AccelerationStructureTypeKHR::TOP_LEVEL)
        .flags(vk::BuildAccelerationStructureFlagsKHR::PREFER_FAST_TRACE)
        .mode(vk::BuildAccelerationStructureModeKHR::BUILD)
        .geometries(&geometry);
    let (build, structure, scratch) = prepare_build(
        context,
        name,
        vk::AccelerationStructureTypeKHR::TOP_LEVEL,
        build,
        &[count],
    )?;
    let range = [vk::AccelerationStructureBuildRangeInfoKHR::default().primitive_count(count)];
    context.run_once(&format!("build {name}"), |commands| {
        commands.build_input_barrier();
        // SAFETY: the instances reference live, built bottom levels (caller); scratch is sized above.
        unsafe { loader.cmd_build_acceleration_structures(commands.raw, &[build], &[&range]) };
        commands.acceleration_structure_barrier();
        Ok(())
    })?;
    drop(scratch);
    Ok(structure)
}

impl CommandBuffer {
    /// Makes earlier transfer and compute writes (uploads of vertices, indices, instances)
    /// visible to acceleration-structure builds.
    pub fn build_input_barrier(&mut self) {
        self.memory_barrier(
            vk::PipelineStageFlags2::ALL_TRANSFER | vk::PipelineStageFlags2::COMPUTE_SHADER,
            vk::AccessFlags2::TRANSFER_WRITE | vk::AccessFlags2::SHADER_WRITE,
            vk::PipelineStageFlags2::ACCELERATION_STRUCTURE_BUILD_KHR,
            vk::AccessFlags2::SHADER_READ,
        );
    }

    /// Makes acceleration-structure builds and copies visible to later builds and to
    /// traversal in compute and ray-tracing shaders.
    pub fn acceleration_structure_barrier(&mut self) {
        // The ray-tracing stage is valid only on devices with ray-tracing pipelines.
        let ray_tracing = if self.has_ray_tracing_pipeline() {
            vk::PipelineStageFlags2::RAY_TRACING_SHADER_KHR
        } else {
            vk::PipelineStageFlags2::NONE
        };
        self.memory_barrier(
            vk::PipelineStageFlags2::ACCELERATION_STRUCTURE_BUILD_KHR
                | vk::PipelineStageFlags2::ACCELERATION_STRUCTURE_COPY_KHR,
            vk::AccessFlags2::ACCELERATION_STRUCTURE_WRITE_KHR,
            vk::PipelineStageFlags2::ACCELERATION_STRUCTURE_BUILD_KHR
                | vk::PipelineStageFlags2::ACCELERATION_STRUCTURE_COPY_KHR
                | vk::PipelineStageFlags2::COMPUTE_SHADER
                | ray_tracing,
            vk::AccessFlags2::ACCELERATION_STRUCTURE_READ_KHR | vk::AccessFlags2::ACCELERATION_STRUCTURE_WRITE_KHR,
        );
    }
}
