//! Buffers that own their memory, carry a debug name, expose their device address, and free
//! themselves on drop.

use std::sync::Arc;

use ash::vk;
use bytemuck::Pod;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
pub use gpu_allocator::MemoryLocation;

use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};

/// What a buffer is used for beyond storage, transfer and device addressing, which every
/// buffer gets (shaders reach buffers through addresses in push constants).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BufferUsage {
    pub indirect: bool,
    pub acceleration_structure_input: bool,
    pub acceleration_structure_storage: bool,
    pub shader_binding_table: bool,
}

impl BufferUsage {
    pub const STORAGE: Self = Self {
        indirect: false,
        acceleration_structure_input: false,
        acceleration_structure_storage: false,
        shader_binding_table: false,
    };

    fn flags(self) -> vk::BufferUsageFlags {
        let mut flags = vk::BufferUsageFlags::STORAGE_BUFFER
            | vk::BufferUsageFlags::SHADER_DEVICE_ADDRESS
            | vk::BufferUsageFlags::TRANSFER_SRC
            | vk::BufferUsageFlags::TRANSFER_DST;
        if self.indirect {
            flags |= vk::BufferUsageFlags::INDIRECT_BUFFER;
        }
        if self.acceleration_structure_input {
            flags |= vk::BufferUsageFlags::ACCELERATION_STRUCTURE_BUILD_INPUT_READ_ONLY_KHR;
        }
        if self.acceleration_structure_storage {
            flags |= vk::BufferUsageFlags::ACCELERATION_STRUCTURE_STORAGE_KHR;
        }
        if self.shader_binding_table {
            flags |= vk::BufferUsageFlags::SHADER_BINDING_TABLE_KHR;
        }
        flags
    }
}

pub struct Buffer {
    shared: Arc<Shared>,
    pub(crate) raw: vk::Buffer,
    allocation: Option<Allocation>,
    size: u64,
    address: u64,
    name: String,
}

/// The largest staging buffer a transfer uses.
const STAGING_CHUNK_BYTES: u64 = 64 << 20;

impl Buffer {
    /// A buffer of `size` bytes. Vulkan forbids empty buffers, so a size of 0 gets 4 bytes
    /// (callers then pass a count of 0 to the kernels that read it).
    pub fn new(
        context: &Context,
        name: &str,
        size: u64,
        usage: BufferUsage,
        location: MemoryLocation,
    ) -> GpuResult<Self> {
        let shared = &context.shared;
        let size = size.max(4);
        // Past maxMemoryAllocationSize the driver may fail in any way it likes (lavapipe
        // crashes at 2 GiB), so the limit is enforced here, with the buffer's name.
        let limit = shared.adapter.capabilities.max_allocation_bytes;
        if limit > 0 && size > limit {
            return Err(GpuError::TooLarge {
                name: name.to_string(),
                bytes: size,
                limit,
            });
        }
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(usage.flags())
            .sharing_mode(vk::SharingMode::EXCLUSIVE);
        // SAFETY: a plain object creation on the live device.
        let raw = unsafe { shared.device.create_buffer(&info, None) }.map_err(|result| match result {
            vk::Result::ERROR_OUT_OF_DEVICE_MEMORY | vk::Result::ERROR_OUT_OF_HOST_MEMORY => GpuError::OutOfMemory {
                name: name.to_string(),
                bytes: size,
                reason: result.to_string(),
            },
            result => GpuError::Vulkan {
                call: "vkCreateBuffer",
                result,
            },
        })?;
        // SAFETY: `raw` was just created on this device.
        let mut requirements = unsafe { shared.device.get_buffer_memory_requirements(raw) };
        if usage.shader_binding_table {
            let alignment = u64::from(shared.adapter.capabilities.shader_group_handle_size.max(64));
            requirements.alignment = requirements.alignment.max(alignment);
        }
        let allocation = shared.allocator().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location,
            linear: true,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        });
        let allocation = match allocation {
            Ok(allocation) => allocation,
            Err(error) => {
                // SAFETY: the buffer has no memory bound and was never used.
                unsafe { shared.device.destroy_buffer(raw, None) };
                return Err(GpuError::OutOfMemory {
                    name: name.to_string(),
                    bytes: size,
                    reason: error.to_string(),
                });
            }
        };
        // SAFETY: the allocation satisfies the buffer's requirements and is not bound elsewhere.
        let bound = unsafe {
            shared
                .device
                .bind_buffer_memory(raw, allocation.memory(), allocation.offset())
        };
        let address_info = vk::BufferDeviceAddressInfo::default().buffer(raw);
        let mut buffer = Self {
            shared: Arc::clone(shared),
            raw,
            allocation: Some(allocation),
            size,
            address: 0,
            name: name.to_string(),
        };
        bound.vk("vkBindBufferMemory")?;
        // SAFETY: the buffer has SHADER_DEVICE_ADDRESS usage and bound memory.
        buffer.address = unsafe { shared.device.get_buffer_device_address(&address_info) };
        shared.set_name(raw, name);
        Ok(buffer)
    }

    /// A device-local buffer holding `data`, uploaded through a staging buffer.
    /// A storage buffer that only kernels read and write (path state, queues, scratch).
    pub fn gpu_storage(context: &Context, name: &str, size: u64) -> GpuResult<Self> {
        Self::new(context, name, size, BufferUsage::STORAGE, MemoryLocation::GpuOnly)
    }

    pub fn from_slice<T: Pod>(context: &Context, name: &str, data: &[T], usage: BufferUsage) -> GpuResult<Self> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        let buffer = Self::new(context, name, bytes.len() as u64, usage, MemoryLocation::GpuOnly)?;
        buffer.upload(context, data)?;
        Ok(buffer)
    }

    /// Writes `data` to the start of this (device-local) buffer through a staging buffer, and
    /// waits for it.
    pub fn upload<T: Pod>(&self, context: &Context, data: &[T]) -> GpuResult<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        self.check_range(0, bytes.len() as u64)?;
        if bytes.is_empty() {
            return Ok(());
        }
        let mut staging = Self::staging(
            context,
            &format!("{} (upload)", self.name),
            bytes.len() as u64,
            MemoryLocation::CpuToGpu,
        )?;
        for (piece, offset) in bytes
            .chunks(staging.size as usize)
            .zip((0..).step_by(staging.size as usize))
        {
            staging.write(0, piece)?;
            context.run_once(&format!("upload {}", self.name), |commands| {
                commands.copy_buffer(&staging, 0, self, offset, piece.len() as u64);
                Ok(())
            })?;
        }
        Ok(())
    }

    /// Copies the first `count` elements of this buffer back to the CPU (waits for the GPU).
    pub fn read_back<T: Pod>(&self, context: &Context, count: usize) -> GpuResult<Vec<T>> {
        self.read_back_at(context, 0, count)
    }

    /// Copies `count` elements from `first_byte` on back to the CPU (waits for the GPU).
    pub fn read_back_at<T: Pod>(&self, context: &Context, first_byte: u64, count: usize) -> GpuResult<Vec<T>> {
        let bytes = count.saturating_mul(std::mem::size_of::<T>()) as u64;
        self.check_range(first_byte, bytes)?;
        let mut out = vec![T::zeroed(); count];
        if count == 0 {
            return Ok(out);
        }
        let staging = Self::staging(
            context,
            &format!("{} (read-back)", self.name),
            bytes,
            MemoryLocation::GpuToCpu,
        )?;
        let out_bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut out);
        for (piece, offset) in out_bytes
            .chunks_mut(staging.size as usize)
            .zip((0u64..).step_by(staging.size as usize))
        {
            context.run_once(&format!("read back {}", self.name), |commands| {
                commands.copy_buffer(self, first_byte + offset, &staging, 0, piece.len() as u64);
                Ok(())
            })?;
            staging.read_into(0, piece)?;
        }
        Ok(out)
    }

    /// A host-visible buffer for a transfer of `bytes`, at most `STAGING_CHUNK_BYTES`: larger
    /// transfers go through it a piece at a time, so that no transfer needs a second
    /// allocation as large as its buffer.
    fn staging(context: &Context, name: &str, bytes: u64, location: MemoryLocation) -> GpuResult<Self> {
        Self::new(
            context,
            name,
            bytes.min(STAGING_CHUNK_BYTES),
            BufferUsage::STORAGE,
            location,
        )
    }

    /// Writes `data` at `offset` bytes into a host-visible buffer.
    pub fn write<T: Pod>(&mut self, offset: u64, data: &[T]) -> GpuResult<()> {
        let bytes: &[u8] = bytemuck::cast_slice(data);
        self.check_range(offset, bytes.len() as u64)?;
        let name = self.name.clone();
        let mapped = self
            .allocation
            .as_mut()
            .and_then(|a| a.mapped_slice_mut())
            .ok_or_else(|| GpuError::InvalidUse {
                name,
                problem: "written from the CPU but not host-visible".into(),
            })?;
        mapped[offset as usize..offset as usize + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }

    /// Reads `count` elements at `offset` bytes from a host-visible buffer.
    pub fn read<T: Pod>(&self, offset: u64, count: usize) -> GpuResult<Vec<T>> {
        // The mapping has no alignment guarantee for T, so copy instead of casting in place.
        let mut out = vec![T::zeroed(); count];
        self.read_into(offset, bytemuck::cast_slice_mut::<T, u8>(&mut out))?;
        Ok(out)
    }

    /// Copies `out.len()` bytes at `offset` of a host-visible buffer into `out`.
    fn read_into(&self, offset: u64, out: &mut [u8]) -> GpuResult<()> {
        self.check_range(offset, out.len() as u64)?;
        let mapped = self
            .allocation
            .as_ref()
            .and_then(|a| a.mapped_slice())
            .ok_or_else(|| GpuError::InvalidUse {
                name: self.name.clone(),
                problem: "read from the CPU but not host-visible".into(),
            })?;
        out.copy_from_slice(&mapped[offset as usize..offset as usize + out.len()]);
        Ok(())
    }

    fn check_range(&self, offset: u64, bytes: u64) -> GpuResult<()> {
        if offset.checked_add(bytes).is_none_or(|end| end > self.size) {
            return Err(GpuError::InvalidUse {
                name: self.name.clone(),
                problem: format!(
                    "access of {bytes} bytes at offset {offset} past its size of {} bytes",
                    self.size
                ),
            });
        }
        Ok(())
    }

    /// The device address shaders use to reach this buffer.
    pub fn address(&self) -> u64 {
        self.address
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the GPU work that uses a buffer before dropping it
        // (run_once and the renderer's pass loop both wait on their tickets).
        unsafe { self.shared.device.destroy_buffer(self.raw, None) };
        if let Some(allocation) = self.allocation.take() {
            if let Err(error) = self.shared.allocator().free(allocation) {
                log::error!("freeing `{}`: {error}", self.name);
            }
        }
    }
}
