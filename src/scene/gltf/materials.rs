//! glTF materials as wavetrace renders them: the metallic-roughness factors and extensions,
//! their textures (images decoded once, textures made once per image, colour space and
//! sampler), and one warning per material naming whatever it asks for that is not rendered.

use std::collections::HashMap;
use std::sync::Arc;

use glam::{Affine2, Vec2, Vec3, Vec4};

use crate::gpu::{MipFilter, SamplerDesc, Wrap};

use super::super::textures::{mip_chain, uv_transform, Texture, TextureRef};
use super::super::{AlphaMode, LayerTextures, Material};
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
            let (references, unusable) = texture_references(document, &material);
            for problem in unusable {
                self.warn(format!("material {name}: {problem}; rendered without it"));
            }
            let [base_color_texture, metallic_roughness_texture, emissive_texture, normal_texture, specular, specular_color, transmission, coat, coat_roughness, coat_normal] =
                references.map(|reference| {
                    reference.map(|((texture, transform, tex_coord), srgb, scale)| {
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
                });
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
                layers: LayerTextures {
                    specular,
                    specular_color,
                    transmission,
                    clearcoat: coat,
                    clearcoat_roughness: coat_roughness,
                    clearcoat_normal: coat_normal,
                },
                alpha: match material.alpha_mode() {
                    gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
                    gltf::material::AlphaMode::Mask => AlphaMode::Mask(material.alpha_cutoff().unwrap_or(0.5)),
                    gltf::material::AlphaMode::Blend => AlphaMode::Blend,
                },
            };
            self.check_texture_sets_and_repair(&mut converted);
            materials.push(converted);
        }
        materials
    }
}

impl Importer {
    /// Warns of a material whose textures read more TEXCOORD sets than a mesh carries, and
    /// clamps its factors to their ranges, with a warning naming those changed.
    fn check_texture_sets_and_repair(&mut self, converted: &mut Material) {
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
        let repaired = repair_factors(converted);
        if !repaired.is_empty() {
            self.warn(format!(
                "material {}: {} outside its range (or not finite); clamped",
                converted.name,
                repaired.join(", ")
            ));
        }
    }
}

/// A texture reference's parts, whether it holds colour (sRGB) and its normal-texture scale.
type TextureReference<'a> = ((gltf::Texture<'a>, UvTransform, u32), bool, f32);

/// Every texture a material reads: base colour, metallic-roughness, emissive and normal, then
/// the layers' in `LAYER_` role order (specular, specular colour, transmission, the coat's
/// weight, roughness and normal); and what is wrong with references the glTF crate does not
/// check.
fn texture_references<'a>(
    document: &'a gltf::Document,
    material: &gltf::Material<'a>,
) -> ([Option<TextureReference<'a>>; 10], Vec<String>) {
    let pbr = material.pbr_metallic_roughness();
    let data = |i: gltf::texture::Info<'a>| (info(i), false, 1.0);
    let colour = |i: gltf::texture::Info<'a>| (info(i), true, 1.0);
    let normal = material.normal_texture().map(|n| {
        let scale = n.scale();
        (normal_info(n), false, scale)
    });
    let specular = material.specular();
    let (coat, problems) = clearcoat_textures(document, material);
    let [coat_weight, coat_roughness, coat_normal] =
        coat.map(|reference| reference.map(|(parts, scale)| (parts, false, scale)));
    let references = [
        pbr.base_color_texture().map(colour),
        pbr.metallic_roughness_texture().map(data),
        material.emissive_texture().map(colour),
        normal,
        specular.as_ref().and_then(|s| s.specular_texture()).map(data),
        specular.as_ref().and_then(|s| s.specular_color_texture()).map(colour),
        material.transmission().and_then(|t| t.transmission_texture()).map(data),
        coat_weight,
        coat_roughness,
        coat_normal,
    ];
    (references, problems)
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
    let transform = n
        .extensions()
        .and_then(|e| e.get("KHR_texture_transform"))
        .map(transform_from_json);
    (n.texture(), transform, n.tex_coord())
}

/// KHR_texture_transform's JSON: the map, and the TEXCOORD set it may name.
fn transform_from_json(t: &serde_json::Value) -> (Affine2, Option<u32>) {
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
}

/// A texture reference from an extension's JSON, with its normal-texture scale (1 unless given).
type JsonTextureInfo<'a> = ((gltf::Texture<'a>, UvTransform, u32), f32);

/// KHR_materials_clearcoat's clearcoatTexture, clearcoatRoughnessTexture and
/// clearcoatNormalTexture, which the glTF crate neither reads nor validates: each that names a
/// texture the file has, and what is wrong with the others.
fn clearcoat_textures<'a>(
    document: &'a gltf::Document,
    material: &gltf::Material,
) -> ([Option<JsonTextureInfo<'a>>; 3], Vec<String>) {
    let mut problems = Vec::new();
    let coat = material.extensions().and_then(|e| e.get(CLEARCOAT));
    let textures = [
        "clearcoatTexture",
        "clearcoatRoughnessTexture",
        "clearcoatNormalTexture",
    ]
    .map(|key| {
        let json = coat?.get(key)?;
        let index = json.get("index").and_then(serde_json::Value::as_u64);
        let Some(texture) = index.and_then(|i| document.textures().nth(usize::try_from(i).ok()?)) else {
            problems.push(match index {
                Some(i) => format!("{CLEARCOAT}.{key} names texture {i}, which the file does not have"),
                None => format!("{CLEARCOAT}.{key} has no texture index"),
            });
            return None;
        };
        let tex_coord = json.get("texCoord").and_then(serde_json::Value::as_u64).unwrap_or(0);
        let transform = json
            .get("extensions")
            .and_then(|e| e.get("KHR_texture_transform"))
            .map(transform_from_json);
        let scale = json.get("scale").and_then(serde_json::Value::as_f64).unwrap_or(1.0) as f32;
        Some((
            (texture, transform, u32::try_from(tex_coord).unwrap_or(u32::MAX)),
            scale,
        ))
    });
    (textures, problems)
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
    if let Some(volume) = material.volume() {
        texture(
            volume.thickness_texture().is_some(),
            "KHR_materials_volume.thicknessTexture (a path tracer measures thickness along its rays)",
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
        // Archived by Khronos; `gltf-transform metalrough` rewrites such a file as metallic-
        // roughness with KHR_materials_specular's textures, which wavetrace reads.
        ignored.push(
            "KHR_materials_pbrSpecularGlossiness (rendered with the material's pbrMetallicRoughness, glTF's white \
             rough metal where it has none; `gltf-transform metalrough` converts it)"
                .into(),
        );
    }
    if let Some(others) = material.extensions() {
        ignored.extend(others.keys().filter(|k| k.as_str() != CLEARCOAT).cloned());
    }
    ignored
}
