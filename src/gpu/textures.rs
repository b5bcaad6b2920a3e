//! The bindless texture array: every texture of a scene as one combined image sampler in a
//! runtime-sized descriptor array (set 0, binding 0 of every pipeline layout), indexed in the
//! shaders with `nonuniformEXT` (`textures.glsl`). Slot 0 is always a 1x1 magenta texture,
//! the stand-in for an image that could not be loaded.

use std::sync::Arc;

use ash::vk;

use super::buffer::{Buffer, BufferUsage, MemoryLocation};
use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::image::{Image, ImageFormat};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wrap {
    Repeat,
    MirroredRepeat,
    ClampToEdge,
}

/// Which mip levels a minified lookup reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MipFilter {
    /// The full-size image only, however small the footprint: glTF's (and OpenGL's) `NEAREST`
    /// and `LINEAR` minification, which name no mipmap.
    BaseLevel,
    /// The level nearest the footprint.
    Nearest,
    /// A blend of the two levels around the footprint.
    Linear,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    pub wrap_u: Wrap,
    pub wrap_v: Wrap,
    /// Bilinear magnification; else nearest.
    pub linear_mag: bool,
    /// Bilinear minification; else nearest.
    pub linear_min: bool,
    pub mip: MipFilter,
}

impl Default for SamplerDesc {
    /// glTF's default sampler: repeat, the implementation's choice of filters (trilinear here).
    fn default() -> Self {
        Self {
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
            linear_mag: true,
            linear_min: true,
            mip: MipFilter::Linear,
        }
    }
}

/// One texture to upload: RGBA8 mip levels, largest first, each half the size of the last
/// (at least 1), rows packed.
pub struct TextureData<'a> {
    pub name: &'a str,
    pub width: u32,
    pub height: u32,
    pub srgb: bool,
    pub levels: &'a [Vec<u8>],
    pub sampler: SamplerDesc,
}

pub struct TextureSet {
    shared: Arc<Shared>,
    pool: vk::DescriptorPool,
    pub(crate) set: vk::DescriptorSet,
    samplers: Vec<vk::Sampler>,
    _images: Vec<Image>,
}

const MAGENTA: [u8; 4] = [255, 0, 255, 255];

fn address_mode(wrap: Wrap) -> vk::SamplerAddressMode {
    match wrap {
        Wrap::Repeat => vk::SamplerAddressMode::REPEAT,
        Wrap::MirroredRepeat => vk::SamplerAddressMode::MIRRORED_REPEAT,
        Wrap::ClampToEdge => vk::SamplerAddressMode::CLAMP_TO_EDGE,
    }
}

fn filter(linear: bool) -> vk::Filter {
    if linear {
        vk::Filter::LINEAR
    } else {
        vk::Filter::NEAREST
    }
}

impl TextureSet {
    /// Uploads `textures` to slots 1.. (slot 0 is the magenta stand-in) and writes the set.
    pub fn new(context: &Context, textures: &[TextureData]) -> GpuResult<Self> {
        let shared = Arc::clone(&context.shared);
        let count = textures.len() as u32 + 1;
        if count > shared.max_textures {
            return Err(GpuError::InvalidUse {
                name: "textures".into(),
                problem: format!(
                    "{} textures, but the device binds at most {}",
                    textures.len(),
                    shared.max_textures - 1
                ),
            });
        }
        let magenta = [MAGENTA.to_vec()];
        let stand_in = TextureData {
            name: "missing texture (magenta)",
            width: 1,
            height: 1,
            srgb: false,
            levels: &magenta,
            sampler: SamplerDesc::default(),
        };
        let all: Vec<&TextureData> = std::iter::once(&stand_in).chain(textures).collect();

        let mut set = Self {
            shared: Arc::clone(&shared),
            pool: vk::DescriptorPool::null(),
            set: vk::DescriptorSet::null(),
            samplers: Vec::new(),
            _images: Vec::new(),
        };
        let max_dimension = shared.adapter.capabilities.max_image_dimension_2d.max(1);
        let mut images = Vec::new();
        let mut batch: Vec<(usize, &[Vec<u8>])> = Vec::new();
        let mut batch_bytes = 0u64;
        for (index, texture) in all.iter().enumerate() {
            // A texture larger than the device takes starts at the first mip level that fits:
            // the chain is already box-filtered, so dropping levels is the downscale.
            let skipped = (0..texture.levels.len().saturating_sub(1))
                .find(|&level| (texture.width.max(texture.height) >> level) <= max_dimension)
                .unwrap_or(texture.levels.len().saturating_sub(1));
            let (width, height) = ((texture.width >> skipped).max(1), (texture.height >> skipped).max(1));
            if skipped > 0 {
                log::warn!(
                    "texture {}: {}x{} is larger than the device's {max_dimension}-pixel limit; uploaded at {width}x{height}",
                    texture.name,
                    texture.width,
                    texture.height
                );
            }
            let levels = &texture.levels[skipped..];
            let format = if texture.srgb {
                ImageFormat::Rgba8Srgb
            } else {
                ImageFormat::Rgba8Unorm
            };
            images.push(Image::texture(
                context,
                texture.name,
                width,
                height,
                levels.len() as u32,
                format,
            )?);
            let sampler = create_sampler(&shared, &texture.sampler)?;
            set.samplers.push(sampler);
            shared.set_name(sampler, texture.name);
            let bytes: u64 = levels.iter().map(|l| l.len() as u64).sum();
            if !batch.is_empty() && batch_bytes + bytes > TEXTURE_STAGING_BYTES {
                upload_batch(context, &images, &batch)?;
                batch.clear();
                batch_bytes = 0;
            }
            batch.push((index, levels));
            batch_bytes += bytes;
        }
        upload_batch(context, &images, &batch)?;

        set.write_descriptors(count, &images)?;
        set._images = images;
        Ok(set)
    }
}

/// Textures are uploaded in batches whose staging buffer stays under this (one larger texture
/// is a batch of its own), so that a scene's textures never need one staging allocation.
const TEXTURE_STAGING_BYTES: u64 = 256 << 20;

/// Uploads the levels of `batch` (image index, levels) into `images` through one staging buffer.
fn upload_batch(context: &Context, images: &[Image], batch: &[(usize, &[Vec<u8>])]) -> GpuResult<()> {
    let bytes: u64 = batch
        .iter()
        .flat_map(|(_, levels)| levels.iter())
        .map(|l| l.len() as u64)
        .sum();
    if batch.is_empty() {
        return Ok(());
    }
    let mut staging = Buffer::new(
        context,
        "texture staging",
        bytes.max(4),
        BufferUsage::STORAGE,
        MemoryLocation::CpuToGpu,
    )?;
    let mut offsets = Vec::new();
    let mut offset = 0u64;
    for (_, levels) in batch {
        let mut level_offsets = Vec::new();
        for level in levels.iter() {
            staging.write(offset, level)?;
            level_offsets.push(offset);
            offset += level.len() as u64;
        }
        offsets.push(level_offsets);
    }
    context.run_once("upload textures", |commands| {
        for ((image, _), level_offsets) in batch.iter().zip(&offsets) {
            commands.upload_texture(&images[*image], &staging, level_offsets);
        }
        Ok(())
    })
}

impl TextureSet {
    /// Allocates the set of `count` descriptors and points each at its image and sampler.
    fn write_descriptors(&mut self, count: u32, images: &[Image]) -> GpuResult<()> {
        let shared = &self.shared;
        let sizes = [vk::DescriptorPoolSize::default()
            .ty(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .descriptor_count(count)];
        let pool_info = vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&sizes);
        // SAFETY: plain object creation on the live device.
        self.pool = unsafe { shared.device.create_descriptor_pool(&pool_info, None) }.vk("vkCreateDescriptorPool")?;
        let counts = [count];
        let mut variable = vk::DescriptorSetVariableDescriptorCountAllocateInfo::default().descriptor_counts(&counts);
        let layouts = [shared.texture_layout];
        let allocate = vk::DescriptorSetAllocateInfo::default()
            .descriptor_pool(self.pool)
            .set_layouts(&layouts)
            .push_next(&mut variable);
        // SAFETY: the pool has room for one set of `count` descriptors.
        self.set = unsafe { shared.device.allocate_descriptor_sets(&allocate) }.vk("vkAllocateDescriptorSets")?[0];
        shared.set_name(self.set, "textures");
        let infos: Vec<vk::DescriptorImageInfo> = images
            .iter()
            .zip(&self.samplers)
            .map(|(image, &sampler)| {
                vk::DescriptorImageInfo::default()
                    .sampler(sampler)
                    .image_view(image.view)
                    .image_layout(vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL)
            })
            .collect();
        let writes = [vk::WriteDescriptorSet::default()
            .dst_set(self.set)
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER)
            .image_info(&infos)];
        // SAFETY: the set is not in use; the views and samplers are alive.
        unsafe { shared.device.update_descriptor_sets(&writes, &[]) };
        Ok(())
    }
}

/// A sampler as the glTF sampler describes it.
fn create_sampler(shared: &Shared, desc: &SamplerDesc) -> GpuResult<vk::Sampler> {
    // Vulkan has no minification without mipmaps: the spec's emulation of OpenGL's is the
    // nearest level with the level of detail clamped to 0.25, which still tells minification
    // (the min filter) from magnification but never leaves level 0.
    let (mipmap_mode, max_lod) = match desc.mip {
        MipFilter::BaseLevel => (vk::SamplerMipmapMode::NEAREST, 0.25),
        MipFilter::Nearest => (vk::SamplerMipmapMode::NEAREST, vk::LOD_CLAMP_NONE),
        MipFilter::Linear => (vk::SamplerMipmapMode::LINEAR, vk::LOD_CLAMP_NONE),
    };
    let sampler_info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(desc.linear_mag))
        .min_filter(filter(desc.linear_min))
        .mipmap_mode(mipmap_mode)
        .address_mode_u(address_mode(desc.wrap_u))
        .address_mode_v(address_mode(desc.wrap_v))
        .address_mode_w(vk::SamplerAddressMode::REPEAT)
        .max_lod(max_lod);
    // SAFETY: plain object creation on the live device.
    unsafe { shared.device.create_sampler(&sampler_info, None) }.vk("vkCreateSampler")
}

impl Drop for TextureSet {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        // SAFETY: owners wait for the GPU work that samples the set before dropping it.
        unsafe {
            self.shared.device.destroy_descriptor_pool(self.pool, None);
            for &sampler in &self.samplers {
                self.shared.device.destroy_sampler(sampler, None);
            }
        }
    }
}

impl CommandBuffer {
    /// Every pipeline bound after this sees `textures` as its set 0.
    pub fn use_textures(&mut self, textures: &TextureSet) {
        self.texture_set = textures.set;
    }
}
