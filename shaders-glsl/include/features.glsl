// Kernels specialised to the scene, as Cycles compiles its kernels for a scene's features:
// one specialization constant holds the FEATURE_ bits a render needs
// (src/integrator/kernel_features.rs), and what a scene does not use is dead code when the
// pipeline is created, so it costs neither registers nor branches. The default, every bit, is
// the general kernel, which renders any scene.
//
// Every guard stands where, for a scene without the feature, the general kernel computes
// exactly what the guard leaves in place (a texture never sampled, a lobe whose weight is
// exactly zero), so specialised and general kernels make the same image (tests/kernel_features.rs).
#ifndef WAVETRACE_FEATURES_GLSL
#define WAVETRACE_FEATURES_GLSL

#include "common.glsl"

layout(constant_id = KERNEL_FEATURES_CONSTANT_ID) const uint KERNEL_FEATURES = FEATURES_ALL;

const bool HAS_TEXTURES = (KERNEL_FEATURES & FEATURE_TEXTURES) != 0u;
const bool HAS_NORMAL_MAPS = (KERNEL_FEATURES & FEATURE_NORMAL_MAPS) != 0u;
const bool HAS_ALPHA = (KERNEL_FEATURES & FEATURE_ALPHA) != 0u;
const bool HAS_VOLUMES = (KERNEL_FEATURES & FEATURE_VOLUMES) != 0u;
const bool HAS_ENVIRONMENT = (KERNEL_FEATURES & FEATURE_ENVIRONMENT) != 0u;
const bool HAS_PUNCTUAL_LIGHTS = (KERNEL_FEATURES & FEATURE_PUNCTUAL_LIGHTS) != 0u;
const bool HAS_METAL = (KERNEL_FEATURES & FEATURE_METAL) != 0u;
const bool HAS_SPECULAR_LAYER = (KERNEL_FEATURES & FEATURE_SPECULAR_LAYER) != 0u;
const bool HAS_TRANSMISSION = (KERNEL_FEATURES & FEATURE_TRANSMISSION) != 0u;
const bool HAS_LIGHT_BVH = (KERNEL_FEATURES & FEATURE_LIGHT_BVH) != 0u;
const bool HAS_LIGHT_BY_POWER = (KERNEL_FEATURES & FEATURE_LIGHT_BY_POWER) != 0u;
// The render's sampler; the general kernel has both and asks PassConstants::path_sampler.
const bool HAS_SOBOL_SAMPLER = (KERNEL_FEATURES & FEATURE_SOBOL_SAMPLER) != 0u;
const bool HAS_INDEPENDENT_SAMPLER = (KERNEL_FEATURES & FEATURE_INDEPENDENT_SAMPLER) != 0u;
const bool HAS_VERTEX_COLORS = (KERNEL_FEATURES & FEATURE_VERTEX_COLORS) != 0u;
// Materials whose textures read two TEXCOORD sets (PassConstants::second_uvs).
const bool HAS_SECOND_UVS = (KERNEL_FEATURES & FEATURE_SECOND_UVS) != 0u;
const bool HAS_CLEARCOAT = (KERNEL_FEATURES & FEATURE_CLEARCOAT) != 0u;
// Textures on the layers' factors (specular, specular colour, transmission, the coat's).
const bool HAS_LAYER_TEXTURES = (KERNEL_FEATURES & FEATURE_LAYER_TEXTURES) != 0u;
// Any lobe with a microfacet distribution or a delta: without one, every BSDF is Lambertian.
const bool HAS_GLOSSY_LOBES = HAS_METAL || HAS_SPECULAR_LAYER || HAS_TRANSMISSION || HAS_CLEARCOAT;
// Texture coordinates and the ray cone's footprint matter only to textures.
const bool HAS_ANY_TEXTURES = HAS_TEXTURES || HAS_NORMAL_MAPS || HAS_LAYER_TEXTURES;

#endif
