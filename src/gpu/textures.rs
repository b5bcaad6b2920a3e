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

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SamplerDesc {
    pub wrap_u: Wrap,
    pub wrap_v: Wrap,
    /// Bilinear magnification; else nearest.
    pub linear_mag: bool,
    /// Bilinear minification; else nearest.
    pub linear_min: bool,
    /// Blend between mip levels; else the nearest level.
    pub linear_mip: bool,
}

impl Default for SamplerDesc {
    /// glTF's default sampler: repeat, the implementation's choice of filters (trilinear here).
    fn default() -> Self {
        Self {
            wrap_u: Wrap::Repeat,
            wrap_v: Wrap::Repeat,
            linear_mag: true,
            linear_min: true,
            linear_mip: true,
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
        let mut images = Vec::new();
        let staging_bytes: u64 = all.iter().flat_map(|t| t.levels.iter()).map(|l| l.len() as u64).sum();
        let mut staging = Buffer::new(
            context,
            "texture staging",
            staging_bytes.max(4),
            BufferUsage::STORAGE,
            MemoryLocation::CpuToGpu,
        )?;
        let mut bytes = Vec::with_capacity(staging_bytes as usize);
        let mut offsets = Vec::new();
        for texture in &all {
            let mut level_offsets = Vec::new();
            for level in texture.levels {
                level_offsets.push(bytes.len() as u64);
                bytes.extend_from_slice(level);
            }
            offsets.push(level_offsets);
            let format = if texture.srgb {
                ImageFormat::Rgba8Srgb
            } else {
                ImageFormat::Rgba8Unorm
            };
            images.push(Image::texture(
                context,
                texture.name,
                texture.width,
                texture.height,
                texture.levels.len() as u32,
                format,
            )?);
            let sampler = create_sampler(&shared, &texture.sampler)?;
            set.samplers.push(sampler);
            shared.set_name(sampler, texture.name);
        }
        staging.write(0, &bytes)?;
        context.run_once("upload textures", |commands| {
            for (image, level_offsets) in images.iter().zip(&offsets) {
                commands.upload_texture(image, &staging, level_offsets);
            }
            Ok(())
        })?;

        set.write_descriptors(count, &images)?;
        set._images = images;
        Ok(set)
    }
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

/// A sampler as the glTF sampler describes it, with every mip level reachable.
fn create_sampler(shared: &Shared, desc: &SamplerDesc) -> GpuResult<vk::Sampler> {
    let sampler_info = vk::SamplerCreateInfo::default()
        .mag_filter(filter(desc.linear_mag))
        .min_filter(filter(desc.linear_min))
        .mipmap_mode(if desc.linear_mip {
            vk::SamplerMipmapMode::LINEAR
        } else {
            vk::SamplerMipmapMode::NEAREST
        })
        .address_mode_u(address_mode(desc.wrap_u))
        .address_mode_v(address_mode(desc.wrap_v))
        .address_mode_w(vk::SamplerAddressMode::REPEAT)
        .max_lod(vk::LOD_CLAMP_NONE);
    // SAFETY: plain object creation on the live device.
    unsafe { shared.device.create_sampler(&sampler_info, None) }.vk("vkCreateSampler")
}

impl Drop for TextureSet {
    fn drop(&mut self) {
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
