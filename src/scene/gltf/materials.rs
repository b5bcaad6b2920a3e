//! glTF materials as wavetrace renders them: the metallic-roughness factors and extensions,
//! their textures (images decoded once, textures made once per image, colour space and
//! sampler), and one warning per material naming whatever it asks for that is not rendered.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Affine2, Vec2, Vec3, Vec4};

use crate::gpu::{MipFilter, SamplerDesc, Wrap};

use super::super::textures::{mip_chain, uv_transform, Texture, TextureRef};
use super::super::{AlphaMode, Material};
use super::uri::{self, ImportOptions};
use super::{Buffers, Importer};

impl Importer {
    pub(super) fn materials(
        &mut self,
        document: &gltf::Document,
        buffers: &Buffers,
        options: &ImportOptions,
        textures: &mut TextureImporter,
    ) -> Vec<Material> {
        let mut materials = Vec::new();
        for material in document.materials() {
            let name = material
                .name()
                .map_or_else(|| material.index().unwrap_or(0).to_string(), str::to_string);
            let pbr = material.pbr_metallic_roughness();
            let ignored = ignored_parameters(&material);
            if !ignored.is_empty() {
                self.warn(format!(
                    "material {name}: ignored (rendered without): {}",
                    ignored.join(", ")
                ));
            }
            let strength = material.emissive_strength().unwrap_or(1.0);
            let mut texture = |info: Option<(gltf::Texture, UvTransform, u32)>, srgb: bool, scale: f32| {
                info.map(|(texture, transform, tex_coord)| {
                    self.texture_ref(
                        &name,
                        (buffers, options),
                        textures,
                        &texture,
                        transform,
                        tex_coord,
                        srgb,
                        scale,
                    )
                })
            };
            let base_color_texture = texture(pbr.base_color_texture().map(info), true, 1.0);
            let metallic_roughness_texture = texture(pbr.metallic_roughness_texture().map(info), false, 1.0);
            let emissive_texture = texture(material.emissive_texture().map(info), true, 1.0);
            let normal = material.normal_texture();
            let normal_scale = normal.as_ref().map_or(1.0, |n| n.scale());
            let normal_texture = texture(normal.map(normal_info), false, normal_scale);
            let (clearcoat, clearcoat_roughness) = clearcoat_factors(&material);
            let mut converted = Material {
                name,
                base_color: Vec4::from_array(pbr.base_color_factor()),
                metallic: pbr.metallic_factor(),
                roughness: pbr.roughness_factor(),
                emission: Vec3::from_array(material.emissive_factor()) * strength,
                specular: material.specular().map_or(1.0, |s| s.specular_factor()),
                specular_color: material
                    .specular()
                    .map_or(Vec3::ONE, |s| Vec3::from_array(s.specular_color_factor())),
                transmission: material.transmission().map_or(0.0, |t| t.transmission_factor()),
                ior: material.ior().unwrap_or(1.5),
                absorption: material.volume().map_or(Vec3::ZERO, |v| {
                    // glTF: "If the value is 0 the material is thin-walled", with no volume inside.
                    if v.thickness_factor() > 0.0 {
                        beer_coefficient(Vec3::from_array(v.attenuation_color()), v.attenuation_distance())
                    } else {
                        Vec3::ZERO
                    }
                }),
                clearcoat,
                clearcoat_roughness,
                base_color_texture,
                metallic_roughness_texture,
                normal_texture,
                emissive_texture,
                alpha: match material.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask(material.alpha_cutoff().unwrap_or(0.5)),
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
            };
            let mut sets: Vec<u32> = converted.textures().map(|t| t.tex_coord).collect();
            sets.sort_unstable();
            sets.dedup();
            if sets.len() > 2 {
                let (first, _) = converted.uv_sets();
                self.warn(format!(
                    "material {}: its textures read TEXCOORD_{}; wavetrace gives a mesh two sets of texture \
                     coordinates, so those of a third read TEXCOORD_{first} (the base colour's, or the first \
                     texture's)",
                    converted.name,
                    sets.iter().map(u32::to_string).collect::<Vec<_>>().join(", TEXCOORD_"),
                ));
            }
            let repaired = repair_factors(&mut converted);
            if !repaired.is_empty() {
                self.warn(format!(
                    "material {}: {} outside its range (or not finite); clamped",
                    converted.name,
                    repaired.join(", ")
                ));
            }
            materials.push(converted);
        }
        materials
    }
}

/// A texture reference's parts: the texture, its KHR_texture_transform, its TEXCOORD set.
fn info(i: gltf::texture::Info) -> (gltf::Texture, UvTransform, u32) {
    let transform = i.texture_transform().map(|t| {
        (
            uv_transform(Vec2::from_array(t.offset()), t.rotation(), Vec2::from_array(t.scale())),
            t.tex_coord(),
        )
    });
    (i.texture(), transform, i.tex_coord())
}

/// A normal texture's parts. The glTF crate reads KHR_texture_transform only on plain
/// texture infos, so here it comes from the extension's JSON.
fn normal_info(n: gltf::material::NormalTexture) -> (gltf::Texture, UvTransform, u32) {
    let transform = n.extensions().and_then(|e| e.get("KHR_texture_transform")).map(|t| {
        let pair = |key: &str, default: f32| {
            let v = t.get(key).and_then(|v| v.as_array());
            let at = |i: usize| {
                v.and_then(|v| v.get(i))
                    .and_then(|x| x.as_f64())
                    .map_or(default, |x| x as f32)
            };
            Vec2::new(at(0), at(1))
        };
        let rotation = t.get("rotation").and_then(|r| r.as_f64()).unwrap_or(0.0) as f32;
        let tex_coord = t.get("texCoord").and_then(|c| c.as_u64()).map(|c| c as u32);
        (
            uv_transform(pair("offset", 0.0), rotation, pair("scale", 1.0)),
            tex_coord,
        )
    });
    (n.texture(), transform, n.tex_coord())
}

/// KHR_texture_transform as an affine map, and the TEXCOORD set it may name instead.
type UvTransform = Option<(Affine2, Option<u32>)>;

/// RGBA8 texels, width, height.
type DecodedImage = (Arc<Vec<u8>>, u32, u32);

/// Decoded images and the textures made of them, each made once.
#[derive(Default)]
pub(super) struct TextureImporter {
    /// Per glTF image: RGBA8, size; `None` when it could not be read or decoded.
    images: HashMap<usize, Option<DecodedImage>>,
    /// (image, sRGB, sampler) -> index in `textures`.
    made: HashMap<(usize, bool, Option<usize>), u32>,
    pub(super) textures: Vec<Texture>,
}

fn wrap(mode: gltf::texture::WrappingMode) -> Wrap {
    match mode {
        gltf::texture::WrappingMode::Repeat => Wrap::Repeat,
        gltf::texture::WrappingMode::MirroredRepeat => Wrap::MirroredRepeat,
        gltf::texture::WrappingMode::ClampToEdge => Wrap::ClampToEdge,
    }
}

fn sampler_desc(sampler: &gltf::texture::Sampler) -> SamplerDesc {
    use gltf::texture::{MagFilter, MinFilter};
    let (linear_min, mip) = match sampler.min_filter() {
        Some(MinFilter::Nearest) => (false, MipFilter::BaseLevel),
        Some(MinFilter::NearestMipmapNearest) => (false, MipFilter::Nearest),
        Some(MinFilter::NearestMipmapLinear) => (false, MipFilter::Linear),
        Some(MinFilter::Linear) => (true, MipFilter::BaseLevel),
        Some(MinFilter::LinearMipmapNearest) => (true, MipFilter::Nearest),
        Some(MinFilter::LinearMipmapLinear) | None => (true, MipFilter::Linear),
    };
    SamplerDesc {
        wrap_u: wrap(sampler.wrap_s()),
        wrap_v: wrap(sampler.wrap_t()),
        linear_mag: !matches!(sampler.mag_filter(), Some(MagFilter::Nearest)),
        linear_min,
        mip,
    }
}

impl Importer {
    /// A material's reference to a texture, decoding its image on first use. An image that
    /// cannot be had is a warning naming the material, and the reference renders magenta.
    #[allow(clippy::too_many_arguments)]
    fn texture_ref(
        &mut self,
        material: &str,
        sources: (&Buffers, &ImportOptions),
        textures: &mut TextureImporter,
        texture: &gltf::Texture,
        transform: UvTransform,
        tex_coord: u32,
        srgb: bool,
        scale: f32,
    ) -> TextureRef {
        let image = texture.source();
        let index = image.index();
        let tex_coord = transform.and_then(|(_, set)| set).unwrap_or(tex_coord);
        let transform = transform.map_or(Affine2::IDENTITY, |(t, _)| t);
        if let std::collections::hash_map::Entry::Vacant(entry) = textures.images.entry(index) {
            let decoded = match self.decode_image(&image, sources) {
                Ok(decoded) => Some(decoded),
                Err(problem) => {
                    self.warn(format!(
                        "material {material}: image {index}{}: {problem}; rendered magenta",
                        image.name().map_or(String::new(), |n| format!(" ({n})"))
                    ));
                    None
                }
            };
            entry.insert(decoded);
        }
        let Some((rgba, width, height)) = textures.images[&index].clone() else {
            return TextureRef {
                texture: None,
                transform,
                scale,
                tex_coord,
            };
        };
        let key = (index, srgb, texture.sampler().index());
        let slot = *textures.made.entry(key).or_insert_with(|| {
            textures.textures.push(Texture {
                name: image.name().map_or_else(|| format!("image {index}"), str::to_string),
                width,
                height,
                srgb,
                levels: Arc::new(mip_chain(rgba.to_vec(), width, height, srgb)),
                sampler: sampler_desc(&texture.sampler()),
            });
            textures.textures.len() as u32 - 1
        });
        TextureRef {
            texture: Some(slot),
            transform,
            scale,
            tex_coord,
        }
    }

    fn decode_image(
        &self,
        image: &gltf::Image,
        (buffers, options): (&Buffers, &ImportOptions),
    ) -> Result<DecodedImage, String> {
        let bytes = match image.source() {
            gltf::image::Source::View { view, .. } => {
                let buffer = buffers
                    .get(view.buffer().index())
                    .and_then(Option::as_deref)
                    .ok_or_else(|| format!("buffer {} could not be fetched", view.buffer().index()))?;
                view.offset()
                    .checked_add(view.length())
                    .and_then(|end| buffer.get(view.offset()..end))
                    .ok_or_else(|| format!("buffer view {} is past the end of its buffer", view.index()))?
                    .to_vec()
            }
            gltf::image::Source::Uri { uri, .. } => match uri::read(&self.path, uri, options) {
                Ok(bytes) => bytes,
                Err(uri::UriError::Unreadable(problem) | uri::UriError::Unfetchable(problem)) => return Err(problem),
            },
        };
        let decoded = crate::input::decode_image(&bytes).map_err(|e| format!("cannot decode: {e}"))?;
        let rgba = decoded.into_rgba8();
        let (width, height) = rgba.dimensions();
        Ok((Arc::new(rgba.into_raw()), width, height))
    }
}

/// Clamps every factor to the range glTF's schema gives it (a non-finite one to its default),
/// so that no NaN or infinity reaches a kernel; returns the names of those changed.
fn repair_factors(material: &mut Material) -> Vec<&'static str> {
    let mut repaired = Vec::new();
    let mut unit = |value: &mut f32, default: f32, name: &'static str| {
        let fixed = if value.is_finite() {
            value.clamp(0.0, 1.0)
        } else {
            default
        };
        if fixed != *value {
            *value = fixed;
            repaired.push(name);
        }
    };
    unit(&mut material.metallic, 1.0, "metallicFactor");
    unit(&mut material.roughness, 1.0, "roughnessFactor");
    unit(&mut material.specular, 1.0, "specularFactor");
    unit(&mut material.transmission, 0.0, "transmissionFactor");
    unit(&mut material.clearcoat, 0.0, "clearcoatFactor");
    unit(&mut material.clearcoat_roughness, 0.0, "clearcoatRoughnessFactor");
    let mut base_color = material.base_color.to_array();
    for channel in &mut base_color {
        unit(channel, 1.0, "baseColorFactor");
    }
    material.base_color = Vec4::from_array(base_color);
    if let AlphaMode::Mask(cutoff) = &mut material.alpha {
        unit(cutoff, 0.5, "alphaCutoff");
    }
    let mut non_negative = |value: &mut Vec3, name: &'static str| {
        let fixed = Vec3::from_array(value.to_array().map(|c| if c.is_finite() { c.max(0.0) } else { 0.0 }));
        if fixed != *value {
            *value = fixed;
            repaired.push(name);
        }
    };
    non_negative(&mut material.emission, "emissiveFactor x emissiveStrength");
    non_negative(&mut material.specular_color, "specularColorFactor");
    non_negative(&mut material.absorption, "KHR_materials_volume attenuation");
    // KHR_materials_ior allows 0 for the legacy "no refraction"; below 1 is rendered as 1.
    let ior = if material.ior.is_finite() {
        material.ior.max(1.0)
    } else {
        1.5
    };
    if ior != material.ior && material.ior != 0.0 {
        repaired.push("ior");
    }
    material.ior = ior;
    repaired.dedup();
    repaired
}

/// KHR_materials_volume's attenuation as an absorption coefficient per unit length: light
/// of `color` is left after `distance`. The default distance (infinity) means clear.
fn beer_coefficient(color: Vec3, distance: f32) -> Vec3 {
    if !(distance.is_finite() && distance > 0.0) {
        return Vec3::ZERO;
    }
    let remaining = color.clamp(Vec3::splat(1e-6), Vec3::ONE);
    -Vec3::new(remaining.x.ln(), remaining.y.ln(), remaining.z.ln()) / distance
}

/// KHR_materials_clearcoat, which the glTF crate does not read.
pub(super) const CLEARCOAT: &str = "KHR_materials_clearcoat";

/// KHR_materials_clearcoat's clearcoatFactor and clearcoatRoughnessFactor (glTF's defaults, 0,
/// where absent or not numbers; `repair_factors` clamps them).
fn clearcoat_factors(material: &gltf::Material) -> (f32, f32) {
    let Some(coat) = material.extensions().and_then(|e| e.get(CLEARCOAT)) else {
        return (0.0, 0.0);
    };
    let factor = |key: &str| {
        coat.get(key)
            .and_then(serde_json::Value::as_f64)
            .map_or(0.0, |v| v as f32)
    };
    (factor("clearcoatFactor"), factor("clearcoatRoughnessFactor"))
}

/// What of a material wavetrace does not render, by its glTF names.
fn ignored_parameters(material: &gltf::Material) -> Vec<String> {
    let mut ignored = Vec::new();
    let mut texture = |present: bool, name: &str| {
        if present {
            ignored.push(name.to_string());
        }
    };
    texture(
        material.occlusion_texture().is_some(),
        "occlusionTexture (a path tracer computes occlusion)",
    );
    if let Some(specular) = material.specular() {
        texture(
            specular.specular_texture().is_some(),
            "KHR_materials_specular.specularTexture",
        );
        texture(
            specular.specular_color_texture().is_some(),
            "KHR_materials_specular.specularColorTexture",
        );
    }
    if let Some(transmission) = material.transmission() {
        texture(
            transmission.transmission_texture().is_some(),
            "KHR_materials_transmission.transmissionTexture",
        );
    }
    if let Some(volume) = material.volume() {
        texture(
            volume.thickness_texture().is_some(),
            "KHR_materials_volume.thicknessTexture",
        );
        let attenuates = beer_coefficient(
            Vec3::from_array(volume.attenuation_color()),
            volume.attenuation_distance(),
        )
        .max_element()
            > 0.0;
        let thick = volume.thickness_factor() > 0.0;
        if attenuates && !thick {
            ignored.push(
                "KHR_materials_volume's attenuation (its thicknessFactor is 0, which glTF makes thin-walled: no volume)"
                    .into(),
            );
        }
    }
    if material.unlit() {
        ignored.push("KHR_materials_unlit (rendered lit)".into());
    }
    if material.pbr_specular_glossiness().is_some() {
        // Archived by Khronos. `gltf-transform metalrough` rewrites such a file with
        // KHR_materials_specular's textures, which wavetrace does not read either.
        ignored.push(
            "KHR_materials_pbrSpecularGlossiness (rendered with the material's pbrMetallicRoughness, glTF's white \
             rough metal where it has none)"
                .into(),
        );
    }
    if let Some(others) = material.extensions() {
        if let Some(coat) = others.get(CLEARCOAT) {
            for texture in [
                "clearcoatTexture",
                "clearcoatRoughnessTexture",
                "clearcoatNormalTexture",
            ] {
                if coat.get(texture).is_some() {
                    ignored.push(format!("{CLEARCOAT}.{texture}"));
                }
            }
        }
        ignored.extend(others.keys().filter(|k| k.as_str() != CLEARCOAT).cloned());
    }
    ignored
}
