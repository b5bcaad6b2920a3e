// The scene's textures: a bindless array of combined image samplers (set 0, binding 0 of
// every pipeline; src/gpu/textures.rs), indexed per material with nonuniformEXT. Slot 0 is a
// magenta stand-in for images that failed to load. The level of detail comes from a ray cone
// (Akenine-Moller et al. 2019, "Texture Level of Detail Strategies for Real-Time Ray
// Tracing"): the cone's width at the hit over the triangle's texels per world unit.
#ifndef WAVETRACE_TEXTURES_GLSL
#define WAVETRACE_TEXTURES_GLSL

#extension GL_EXT_nonuniform_qualifier : require

#include "common.glsl"
#include "features.glsl"
#include "scene.glsl"

layout(set = 0, binding = 0) uniform sampler2D scene_textures[];

// Where a point reads its material's textures: the mesh's texture coordinates and, where the
// material's textures read two TEXCOORD sets, the second set's (GpuMaterial::second_uv_textures
// says which textures read it), each with log2 of the ray cone's width in its own units.
struct TextureCoordinates {
    vec2 uv;
    float log_footprint;
    vec2 second_uv;
    float second_log_footprint;
};

// The coordinates at a point of a mesh's triangle, read at the textures' finest level (where no
// cone reaches: light samples, the alpha test).
TextureCoordinates finest_texture_coordinates(PassConstants c, GpuMaterial m, uvec3 vertices, vec3 weights) {
    TextureCoordinates t = TextureCoordinates(interpolated_uv(c.uvs, vertices, weights), -64.0, vec2(0.0), -64.0);
    if (HAS_SECOND_UVS && m.second_uv_textures != 0u) {
        t.second_uv = interpolated_uv(c.second_uvs, vertices, weights);
    }
    return t;
}

// The coordinates the texture of `second_uv_bit` (SECOND_UV_*) reads, and their footprint.
vec2 texture_uv(GpuMaterial m, uint second_uv_bit, TextureCoordinates t, out float log_footprint) {
    bool second = HAS_SECOND_UVS && (m.second_uv_textures & second_uv_bit) != 0u;
    log_footprint = second ? t.second_log_footprint : t.log_footprint;
    return second ? t.second_uv : t.uv;
}


// KHR_texture_transform: x_axis in m.xy, y_axis in m.zw, then the offset.
vec2 transform_uv(vec4 m, vec2 offset, vec2 uv) {
    return vec2(m.x * uv.x + m.z * uv.y, m.y * uv.x + m.w * uv.y) + offset;
}

// `log_footprint`: log2 of the cone's width in UV units (before the texture's size).
vec4 sample_texture(uint slot, vec2 uv, float log_footprint) {
    ivec2 size = textureSize(scene_textures[nonuniformEXT(slot)], 0);
    float lod = log_footprint + 0.5 * log2(float(size.x) * float(size.y));
    return textureLod(scene_textures[nonuniformEXT(slot)], uv, max(lod, 0.0));
}

vec4 material_base_color(GpuMaterial m, TextureCoordinates at) {
    if (!HAS_TEXTURES || m.textures.x == NO_TEXTURE) {
        return m.base_color;
    }
    float log_footprint;
    vec2 uv = texture_uv(m, SECOND_UV_BASE_COLOR, at, log_footprint);
    vec2 t = transform_uv(m.base_color_uv, m.base_color_and_metallic_roughness_uv_offsets.xy, uv);
    return m.base_color * sample_texture(m.textures.x, t, log_footprint);
}

// Metallic and roughness (B and G of their texture).
vec2 material_metallic_roughness(GpuMaterial m, TextureCoordinates at) {
    if (!HAS_TEXTURES || m.textures.y == NO_TEXTURE) {
        return vec2(m.metallic, m.roughness);
    }
    float log_footprint;
    vec2 uv = texture_uv(m, SECOND_UV_METALLIC_ROUGHNESS, at, log_footprint);
    vec2 t = transform_uv(m.metallic_roughness_uv, m.base_color_and_metallic_roughness_uv_offsets.zw, uv);
    vec4 texel = sample_texture(m.textures.y, t, log_footprint);
    return vec2(m.metallic * texel.b, m.roughness * texel.g);
}

vec3 material_emission(GpuMaterial m, TextureCoordinates at) {
    if (!HAS_TEXTURES || m.textures.w == NO_TEXTURE) {
        return m.emission;
    }
    float log_footprint;
    vec2 uv = texture_uv(m, SECOND_UV_EMISSIVE, at, log_footprint);
    vec2 t = transform_uv(m.emissive_uv, m.normal_and_emissive_uv_offsets.zw, uv);
    return m.emission * sample_texture(m.textures.w, t, log_footprint).rgb;
}

// The tangent-space normal of the normal texture, its xy scaled; (0, 0, 1) without one.
vec3 material_normal(GpuMaterial m, TextureCoordinates at) {
    if (!HAS_NORMAL_MAPS || m.textures.z == NO_TEXTURE) {
        return vec3(0.0, 0.0, 1.0);
    }
    float log_footprint;
    vec2 uv = texture_uv(m, SECOND_UV_NORMAL, at, log_footprint);
    vec2 t = transform_uv(m.normal_uv, m.normal_and_emissive_uv_offsets.xy, uv);
    vec3 n = sample_texture(m.textures.z, t, log_footprint).xyz * 2.0 - 1.0;
    return vec3(n.xy * m.normal_scale, n.z);
}

// Whether the material has a texture of layer `role` (LAYER_*).
bool has_layer_texture(GpuMaterial m, uint role) {
    return HAS_LAYER_TEXTURES && (m.layer_texture_roles & (1u << role)) != 0u;
}

// The material's binding of layer `role`, which it has, in the scene's layer texture table:
// a material's bindings lie in role order, those it lacks left out.
GpuTextureBinding layer_binding(uint64_t table, GpuMaterial m, uint role) {
    uint below = m.layer_texture_roles & ((1u << role) - 1u);
    return LayerTextures(table).v[m.first_layer_texture + bitCount(below)];
}

// The material's texture of layer `role` at `at`, or `absent` where the material has none:
// what multiplies that layer's factor.
vec4 layer_texture(uint64_t table, GpuMaterial m, uint role, TextureCoordinates at, vec4 absent) {
    if (!has_layer_texture(m, role)) {
        return absent;
    }
    GpuTextureBinding binding = layer_binding(table, m, role);
    bool second = HAS_SECOND_UVS && binding.second_uv != 0u;
    vec2 uv = transform_uv(binding.transform, binding.offset, second ? at.second_uv : at.uv);
    return sample_texture(binding.slot, uv, second ? at.second_log_footprint : at.log_footprint);
}

// The layers' factors where a point reads its material's textures.
struct LayerFactors {
    float specular;
    vec3 specular_color;
    float transmission;
    float clearcoat;
    float clearcoat_roughness;
};

LayerFactors material_layers(uint64_t table, GpuMaterial m, TextureCoordinates at) {
    LayerFactors f = LayerFactors(m.specular, m.specular_color, m.transmission, m.clearcoat, m.clearcoat_roughness);
    if (!HAS_LAYER_TEXTURES || m.layer_texture_roles == 0u) {
        return f;
    }
    f.specular *= layer_texture(table, m, LAYER_SPECULAR, at, vec4(1.0)).a;
    f.specular_color *= layer_texture(table, m, LAYER_SPECULAR_COLOR, at, vec4(1.0)).rgb;
    f.transmission *= layer_texture(table, m, LAYER_TRANSMISSION, at, vec4(1.0)).r;
    f.clearcoat *= layer_texture(table, m, LAYER_CLEARCOAT, at, vec4(1.0)).r;
    f.clearcoat_roughness *= layer_texture(table, m, LAYER_CLEARCOAT_ROUGHNESS, at, vec4(1.0)).g;
    return f;
}

// The coat's weight at a point: its factor times its texture's red.
float material_clearcoat(uint64_t table, GpuMaterial m, TextureCoordinates at) {
    return m.clearcoat * layer_texture(table, m, LAYER_CLEARCOAT, at, vec4(1.0)).r;
}

// The tangent-space normal of the coat's normal texture, its xy scaled; (0, 0, 1) without one.
vec3 material_coat_normal(uint64_t table, GpuMaterial m, TextureCoordinates at) {
    if (!has_layer_texture(m, LAYER_CLEARCOAT_NORMAL)) {
        return vec3(0.0, 0.0, 1.0);
    }
    float scale = layer_binding(table, m, LAYER_CLEARCOAT_NORMAL).scale;
    vec3 n = layer_texture(table, m, LAYER_CLEARCOAT_NORMAL, at, vec4(0.5, 0.5, 1.0, 1.0)).xyz * 2.0 - 1.0;
    return vec3(n.xy * scale, n.z);
}

#endif
