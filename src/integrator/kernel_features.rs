//! Which scene features a render's kernels must handle: the FEATURE_ bits of the shading
//! kernels' specialization constant (include/features.glsl), found from the scene at load,
//! as Cycles picks its kernel features. A feature is left out only where the scene's values
//! make everything it computes exactly zero or unused, so that the specialised kernels give the
//! general kernels' image.

use std::fmt;

use crate::gpu::SpecializationConstant;
use crate::interface::{
    FEATURES_ALL, FEATURE_ALPHA, FEATURE_CLEARCOAT, FEATURE_ENVIRONMENT, FEATURE_INDEPENDENT_SAMPLER,
    FEATURE_LAYER_TEXTURES, FEATURE_LIGHT_BVH, FEATURE_LIGHT_BY_POWER, FEATURE_METAL, FEATURE_NORMAL_MAPS,
    FEATURE_PUNCTUAL_LIGHTS, FEATURE_SECOND_UVS, FEATURE_SOBOL_SAMPLER, FEATURE_SPECULAR_LAYER, FEATURE_TEXTURES,
    FEATURE_TRANSMISSION, FEATURE_VERTEX_COLORS, FEATURE_VOLUMES, KERNEL_FEATURES_CONSTANT_ID, LIGHT_SELECTION_BVH,
};
use crate::sampler::Sampler;
use crate::scene::{AlphaMode, Material, Scene};

/// A set of FEATURE_ bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelFeatures(u32);

const NAMES: [(u32, &str); 17] = [
    (FEATURE_TEXTURES, "textures"),
    (FEATURE_NORMAL_MAPS, "normal maps"),
    (FEATURE_ALPHA, "alpha"),
    (FEATURE_VOLUMES, "volumes"),
    (FEATURE_ENVIRONMENT, "environment"),
    (FEATURE_PUNCTUAL_LIGHTS, "punctual lights"),
    (FEATURE_METAL, "metal"),
    (FEATURE_SPECULAR_LAYER, "specular layer"),
    (FEATURE_TRANSMISSION, "transmission"),
    (FEATURE_LIGHT_BVH, "light bvh"),
    (FEATURE_LIGHT_BY_POWER, "lights by power"),
    (FEATURE_SOBOL_SAMPLER, "sobol numbers"),
    (FEATURE_INDEPENDENT_SAMPLER, "independent numbers"),
    (FEATURE_VERTEX_COLORS, "vertex colours"),
    (FEATURE_SECOND_UVS, "two texture coordinate sets"),
    (FEATURE_CLEARCOAT, "clearcoat"),
    (FEATURE_LAYER_TEXTURES, "layer textures"),
];

impl KernelFeatures {
    /// The general kernels: every feature.
    pub const ALL: Self = Self(FEATURES_ALL);

    /// What `scene` uses, with an environment or not, its lights chosen as `light_selection`
    /// (`LIGHT_SELECTION_*`) says.
    pub fn of(scene: &Scene, environment: bool, light_selection: u32) -> Self {
        let mut bits = scene.materials.iter().fold(0, |bits, m| bits | material_features(m));
        bits |= if light_selection == LIGHT_SELECTION_BVH {
            FEATURE_LIGHT_BVH
        } else {
            FEATURE_LIGHT_BY_POWER
        };
        if environment {
            bits |= FEATURE_ENVIRONMENT;
        }
        if !scene.lights.is_empty() {
            bits |= FEATURE_PUNCTUAL_LIGHTS;
        }
        // The importer keeps a mesh's colours only where one differs from 1.
        if scene.meshes.iter().any(|mesh| mesh.colors.is_some()) {
            bits |= FEATURE_VERTEX_COLORS;
        }
        Self(bits)
    }

    /// These features with the numbers of `sampler` only (`of` leaves the sampler out).
    pub fn with_sampler(self, sampler: Sampler) -> Self {
        let bits = self.0 & !(FEATURE_SOBOL_SAMPLER | FEATURE_INDEPENDENT_SAMPLER);
        Self(
            bits | match sampler {
                Sampler::Sobol => FEATURE_SOBOL_SAMPLER,
                Sampler::Independent => FEATURE_INDEPENDENT_SAMPLER,
            },
        )
    }

    pub fn bits(self) -> u32 {
        self.0
    }

    pub fn contains(self, feature: u32) -> bool {
        self.0 & feature == feature
    }

    /// Whether any BSDF has a lobe beyond the Lambertian base (features.glsl's
    /// HAS_GLOSSY_LOBES).
    pub fn has_glossy_lobes(self) -> bool {
        self.0 & (FEATURE_METAL | FEATURE_SPECULAR_LAYER | FEATURE_TRANSMISSION | FEATURE_CLEARCOAT) != 0
    }

    /// Whether any material textures a layer's factor (features.glsl's HAS_LAYER_TEXTURES).
    pub fn has_layer_textures(self) -> bool {
        self.contains(FEATURE_LAYER_TEXTURES)
    }

    /// The specialization constant that carries these features to every kernel.
    pub fn specialization(self) -> [SpecializationConstant; 1] {
        [SpecializationConstant {
            id: KERNEL_FEATURES_CONSTANT_ID,
            value: self.0,
        }]
    }
}

/// The features one material needs. Each test is on the exact values the BSDF multiplies by
/// (bsdf.glsl): a lobe's weight is exactly zero only where its factor is, and a metallic
/// texture can lower a metallic factor of 1, opening the dielectric's layer (as a transmission
/// texture can lower a transmission factor of 1).
fn material_features(m: &Material) -> u32 {
    let mut bits = 0;
    if m.base_color_texture.is_some() || m.metallic_roughness_texture.is_some() || m.emissive_texture.is_some() {
        bits |= FEATURE_TEXTURES;
    }
    if m.normal_texture.is_some() {
        bits |= FEATURE_NORMAL_MAPS;
    }
    if m.layers.any() {
        bits |= FEATURE_LAYER_TEXTURES;
    }
    if m.uv_sets().1.is_some() {
        bits |= FEATURE_SECOND_UVS;
    }
    if m.alpha != AlphaMode::Opaque {
        bits |= FEATURE_ALPHA;
    }
    if m.absorption.to_array().iter().any(|&a| a != 0.0) {
        bits |= FEATURE_VOLUMES;
    }
    if m.metallic != 0.0 {
        bits |= FEATURE_METAL;
    }
    let dielectric_possible = m.metallic != 1.0 || m.metallic_roughness_texture.is_some();
    // A transmission texture can lower a transmission factor of 1, uncovering the base.
    let opaque_possible = m.transmission != 1.0 || m.layers.transmission.is_some();
    if m.specular != 0.0 && opaque_possible && dielectric_possible {
        bits |= FEATURE_SPECULAR_LAYER;
    }
    if m.transmission != 0.0 {
        bits |= FEATURE_TRANSMISSION;
    }
    if m.clearcoat != 0.0 {
        bits |= FEATURE_CLEARCOAT;
    }
    bits
}

impl fmt::Display for KernelFeatures {
    /// The features by name, "none" for a purely Lambertian scene lit by its emitters.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = NAMES
            .iter()
            .filter(|&&(bit, _)| self.contains(bit))
            .map(|&(_, name)| name)
            .collect();
        if names.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&names.join(", "))
        }
    }
}
