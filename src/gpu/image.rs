//! 2D images that own their memory and view, carry a debug name, and free themselves.

use std::sync::Arc;

use ash::vk;
use gpu_allocator::vulkan::{Allocation, AllocationCreateDesc, AllocationScheme};
use gpu_allocator::MemoryLocation;

use super::buffer::Buffer;
use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};

/// Formats wavetrace renders to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImageFormat {
    Rgba32Float,
    Rgba8Unorm,
    /// Colour textures: the sampler decodes sRGB to linear before filtering.
    Rgba8Srgb,
}

impl ImageFormat {
    pub(crate) fn vk(self) -> vk::Format {
        match self {
            ImageFormat::Rgba32Float => vk::Format::R32G32B32A32_SFLOAT,
            ImageFormat::Rgba8Unorm => vk::Format::R8G8B8A8_UNORM,
            ImageFormat::Rgba8Srgb => vk::Format::R8G8B8A8_SRGB,
        }
    }

    pub fn bytes_per_pixel(self) -> u64 {
        match self {
            ImageFormat::Rgba32Float => 16,
            ImageFormat::Rgba8Unorm | ImageFormat::Rgba8Srgb => 4,
        }
    }
}

pub struct Image {
    shared: Arc<Shared>,
    pub(crate) raw: vk::Image,
    pub(crate) view: vk::ImageView,
    allocation: Option<Allocation>,
    width: u32,
    height: u32,
    levels: u32,
    format: ImageFormat,
    name: String,
}

impl Image {
    /// A device-local image usable as a storage image, a sampled image and a copy source or
    /// destination; it starts in the UNDEFINED layout (`CommandBuffer::prepare_general`).
    pub fn new(context: &Context, name: &str, width: u32, height: u32, format: ImageFormat) -> GpuResult<Self> {
        let usage = vk::ImageUsageFlags::STORAGE
            | vk::ImageUsageFlags::SAMPLED
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST;
        Self::create(context, name, width, height, 1, format, usage)
    }

    /// A sampled-only image with `levels` mip levels, filled by `CommandBuffer::upload_texture`.
    pub fn texture(
        context: &Context,
        name: &str,
        width: u32,
        height: u32,
        levels: u32,
        format: ImageFormat,
    ) -> GpuResult<Self> {
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        Self::create(context, name, width, height, levels, format, usage)
    }

    pub(crate) fn create(
        context: &Context,
        name: &str,
        width: u32,
        height: u32,
        levels: u32,
        format: ImageFormat,
        usage: vk::ImageUsageFlags,
    ) -> GpuResult<Self> {
        let shared = &context.shared;
        if width == 0 || height == 0 {
            return Err(GpuError::InvalidUse {
                name: name.into(),
                problem: format!("size {width}x{height}"),
            });
        }
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format.vk())
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(levels)
            .array_layers(1)
            .samples(vk::SampleCountFlags::TYPE_1)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage)
            .initial_layout(vk::ImageLayout::UNDEFINED);
        // SAFETY: plain object creation on the live device.
        let raw = unsafe { shared.device.create_image(&info, None) }.vk("vkCreateImage")?;
        // SAFETY: `raw` was just created on this device.
        let requirements = unsafe { shared.device.get_image_memory_requirements(raw) };
        let allocation = match shared.allocator().allocate(&AllocationCreateDesc {
            name,
            requirements,
            location: MemoryLocation::GpuOnly,
            linear: false,
            allocation_scheme: AllocationScheme::GpuAllocatorManaged,
        }) {
            Ok(allocation) => allocation,
            Err(error) => {
                // SAFETY: the image has no memory and was never used.
                unsafe { shared.device.destroy_image(raw, None) };
                return Err(GpuError::OutOfMemory {
                    name: name.into(),
                    bytes: requirements.size,
                    reason: error.to_string(),
                });
            }
        };
        // SAFETY: the memory is bound to this image only, and the image (which owns the
        // allocation from here) is destroyed before the allocation is freed (Drop).
        let (memory, offset) = (unsafe { allocation.memory() }, allocation.offset());
        // Owned from here, so that an error below frees the image and its memory.
        let mut image = Self {
            shared: Arc::clone(shared),
            raw,
            view: vk::ImageView::null(),
            allocation: Some(allocation),
            width,
            height,
            levels,
            format,
            name: name.to_string(),
        };
        // SAFETY: the allocation satisfies the image's requirements and is not bound elsewhere.
        unsafe { shared.device.bind_image_memory(raw, memory, offset) }.vk("vkBindImageMemory")?;
        let view_info = vk::ImageViewCreateInfo::default()
            .image(raw)
            .view_type(vk::ImageViewType::TYPE_2D)
            .format(format.vk())
            .subresource_range(color_range(levels));
        // SAFETY: the image has bound memory.
        image.view = unsafe { shared.device.create_image_view(&view_info, None) }.vk("vkCreateImageView")?;
        shared.set_name(raw, name);
        shared.set_name(image.view, name);
        Ok(image)
    }

    pub fn width(&self) -> u32 {
        self.width
    }
    pub fn height(&self) -> u32 {
        self.height
    }
    pub fn format(&self) -> ImageFormat {
        self.format
    }
    pub fn byte_size(&self) -> u64 {
        u64::from(self.width) * u64::from(self.height) * self.format.bytes_per_pixel()
    }
}

fn color_range(levels: u32) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .level_count(levels)
        .layer_count(1)
}

impl Drop for Image {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the GPU work that uses an image before dropping it.
        unsafe {
            self.shared.device.destroy_image_view(self.view, None);
            self.shared.device.destroy_image(self.raw, None);
        }
        if let Some(allocation) = self.allocation.take() {
            if let Err(error) = self.shared.allocator().free(allocation) {
                log::error!("freeing `{}`: {error}", self.name);
            }
        }
    }
}

impl CommandBuffer {
    /// Moves an image into the GENERAL layout (storage writes, copies), discarding what it held.
    pub fn prepare_general(&mut self, image: &Image) {
        let barrier = vk::ImageMemoryBarrier2::default()
            .src_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .src_access_mask(vk::AccessFlags2::MEMORY_WRITE)
            .dst_stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
            .dst_access_mask(vk::AccessFlags2::MEMORY_READ | vk::AccessFlags2::MEMORY_WRITE)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::GENERAL)
            .image(image.raw)
            .subresource_range(color_range(1));
        let barriers = [barrier];
        let dependency = vk::DependencyInfo::default().image_memory_barriers(&barriers);
        // SAFETY: recording state is upheld by the caller.
        unsafe { self.raw_device().cmd_pipeline_barrier2(self.raw, &dependency) };
    }

    /// Clears an image in the GENERAL layout to one colour.
    pub fn clear_image(&mut self, image: &Image, rgba: [f32; 4]) {
        let color = vk::ClearColorValue { float32: rgba };
        // SAFETY: the image is in GENERAL (caller) and has TRANSFER_DST usage.
        unsafe {
            self.raw_device().cmd_clear_color_image(
                self.raw,
                image.raw,
                vk::ImageLayout::GENERAL,
                &color,
                &[color_range(1)],
            )
        };
    }

    /// Fills every mip level of a texture from `staging` (level after level, rows packed, at
    /// `level_offsets`) and leaves it ready for sampling by any shader.
    pub fn upload_texture(&mut self, image: &Image, staging: &Buffer, level_offsets: &[u64]) {
        let transition = |old, new, src_stage, src_access, dst_stage, dst_access| {
            vk::ImageMemoryBarrier2::default()
                .src_stage_mask(src_stage)
                .src_access_mask(src_access)
                .dst_stage_mask(dst_stage)
                .dst_access_mask(dst_access)
                .old_layout(old)
                .new_layout(new)
                .image(image.raw)
                .subresource_range(color_range(image.levels))
        };
        let to_copy = [transition(
            vk::ImageLayout::UNDEFINED,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::PipelineStageFlags2::NONE,
            vk::AccessFlags2::NONE,
            vk::PipelineStageFlags2::COPY,
            vk::AccessFlags2::TRANSFER_WRITE,
        )];
        let regions: Vec<vk::BufferImageCopy> = level_offsets
            .iter()
            .enumerate()
            .map(|(level, &offset)| {
                vk::BufferImageCopy::default()
                    .buffer_offset(offset)
                    .image_subresource(
                        vk::ImageSubresourceLayers::default()
                            .aspect_mask(vk::ImageAspectFlags::COLOR)
                            .mip_level(level as u32)
                            .layer_count(1),
                    )
                    .image_extent(vk::Extent3D {
                        width: (image.width >> level).max(1),
                        height: (image.height >> level).max(1),
                        depth: 1,
                    })
            })
            .collect();
        let to_read = [transition(
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
            vk::PipelineStageFlags2::COPY,
            vk::AccessFlags2::TRANSFER_WRITE,
            vk::PipelineStageFlags2::ALL_COMMANDS,
            vk::AccessFlags2::SHADER_SAMPLED_READ,
        )];
        // SAFETY: recording state is upheld by the caller; the regions lie inside the image's
        // levels and the staging buffer (the caller sized it from the same level sizes).
        unsafe {
            let device = self.raw_device();
            device.cmd_pipeline_barrier2(self.raw, &vk::DependencyInfo::default().image_memory_barriers(&to_copy));
            device.cmd_copy_buffer_to_image(
                self.raw,
                staging.raw,
                image.raw,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &regions,
            );
            device.cmd_pipeline_barrier2(self.raw, &vk::DependencyInfo::default().image_memory_barriers(&to_read));
        }
    }

    /// Copies a whole image in the GENERAL layout into `buffer`, rows packed.
    pub fn copy_image_to_buffer(&mut self, image: &Image, buffer: &Buffer) {
        let region = vk::BufferImageCopy::default()
            .image_subresource(
                vk::ImageSubresourceLayers::default()
                    .aspect_mask(vk::ImageAspectFlags::COLOR)
                    .layer_count(1),
            )
            .image_extent(vk::Extent3D {
                width: image.width,
                height: image.height,
                depth: 1,
            });
        // SAFETY: the image is in GENERAL (caller); the buffer is large enough (caller).
        unsafe {
            self.raw_device().cmd_copy_image_to_buffer(
                self.raw,
                image.raw,
                vk::ImageLayout::GENERAL,
                buffer.raw,
                &[region],
            )
        };
    }
}
