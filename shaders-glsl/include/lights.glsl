// Next-event estimation's light choice: the environment with probability
// `environment_choice`, else (with light culling, in a cell that lists any) a light of finite
// range among the cell's (light_culling.glsl) with probability `ranged_choice`, else a light
// (an emissive triangle) by the pass's selection strategy
// (light_tree.glsl, or light_bvh.glsl by importance at the shading point `ctx`), then a
// uniform point on it; and, for a light that a path hits by BSDF sampling, the density with
// which this would have chosen the same point from the same context, from the same stored
// tree, for the MIS weight.
#ifndef WAVETRACE_LIGHTS_GLSL
#define WAVETRACE_LIGHTS_GLSL

#include "scene.glsl"
#include "bsdf.glsl"
#include "light_tree.glsl"
#include "light_bvh.glsl"
#include "light_culling.glsl"
#include "environment.glsl"
#include "textures.glsl"

layout(buffer_reference, scalar) readonly buffer LightMap { GpuLightEntry v[]; };
layout(buffer_reference, scalar) readonly buffer FirstLights { uint v[]; };


// A point on a light: where, its front normal, its radiance, the weight of a coat over it
// (coat_over_emission), and its density per unit area (selection probability over the
// triangle's area). False when no light can be chosen.
bool sample_light(PassConstants c, uint light, float probability, vec2 u_point, out vec3 position, out vec3 normal,
                  out vec3 radiance, out float clearcoat, out float area_density) {
    position = vec3(0.0);
    normal = vec3(0.0);
    radiance = vec3(0.0);
    clearcoat = 0.0;
    area_density = 0.0;
    if (light >= c.light_count) {
        return false;
    }
    GpuLightEntry entry = LightMap(c.light_map).v[light];
    WorldTriangle emitter = light_triangle(c.positions, c.indices, c.instances, entry);
    vec3 front = cross(emitter.p1 - emitter.p0, emitter.p2 - emitter.p0);
    float twice_area = length(front);
    if (!(twice_area > 0.0) || !(probability > 0.0)) {
        return false;
    }
    normal = (emitter.instance.flips_winding != 0 ? -front : front) / twice_area;
    // The square-root parametrisation: uniform in area.
    float s = sqrt(u_point.x);
    float b0 = 1.0 - s;
    float b1 = u_point.y * s;
    position = emitter.p0 * b0 + emitter.p1 * b1 + emitter.p2 * (1.0 - b0 - b1);
    GpuMaterial material = Materials(c.materials).v[entry.material];
    radiance = material.emission;
    clearcoat = HAS_CLEARCOAT ? material.clearcoat : 0.0;
    bool textured_emission = HAS_TEXTURES && material.textures.w != NO_TEXTURE;
    bool textured_coat = HAS_CLEARCOAT && clearcoat > 0.0 && has_layer_texture(material, LAYER_CLEARCOAT);
    if (textured_emission || textured_coat) {
        uvec3 vertices = triangle_vertices(c.indices, emitter, 0);
        // No cone reaches a light sample: the finest level.
        TextureCoordinates at = finest_texture_coordinates(c, material, vertices, vec3(b0, b1, 1.0 - b0 - b1));
        radiance = material_emission(material, at);
        clearcoat = material_clearcoat(c.layer_textures, material, at);
    }
    area_density = probability / (0.5 * twice_area);
    return true;
}

// Whether lights are chosen by the light BVH (`selection`: PassConstants::light_selection). A
// kernel specialised to one way of choosing compiles only that way's code.
bool chooses_by_light_bvh(uint selection) {
    return HAS_LIGHT_BVH && (!HAS_LIGHT_BY_POWER || selection == LIGHT_SELECTION_BVH);
}

// The density per unit area with which sample_light picks a point on `triangle` of
// `instance` (of world-space `area`); 0 for a triangle that is not a light.
// `ctx`: where the path was when it sampled the direction that hit the light.
float light_hit_area_density(PassConstants c, LightContext ctx, uint instance, uint triangle, float area) {
    uint first = FirstLights(c.instance_light_offset).v[instance];
    if (c.light_count == 0 || first == NOT_A_LIGHT || !(area > 0.0)) {
        return 0.0;
    }
    float probability = chooses_by_light_bvh(c.light_selection)
        ? light_bvh_probability(c.light_bvh, c.light_bvh_leaf_of, ctx, first + triangle)
        : light_selection_probability(c.light_selection, c.light_tree, c.light_cdf, c.light_count,
                                      c.light_tree_arity, first + triangle);
    float unranged = 1.0;
    if (HAS_PUNCTUAL_LIGHTS && c.light_culling != LIGHT_CULLING_OFF && ctx.spatial) {
        unranged = 1.0 - ranged_share(c, light_cell(c, ctx.point));
    }
    return (1.0 - c.environment_choice) * unranged * (1.0 - c.punctual_choice) * probability / area;
}

layout(buffer_reference, scalar) readonly buffer PunctualLights { GpuPunctualLight v[]; };


// What next-event estimation aims at: a point on an emissive triangle (with its front
// normal and the density per unit area of choosing it), a direction towards the
// environment (with the density per solid angle), or a punctual light (`delta`: with the
// probability of choosing it, which no BSDF sample can hit); the radiance it sends.
struct LightSample {
    vec3 point_or_direction;
    bool at_infinity;
    vec3 normal;
    float pdf;
    vec3 radiance;
    bool delta;
    uint punctual;
    // The coat over an emissive triangle (coat_over_emission); 0 for other lights.
    float clearcoat;
};

// A punctual light as a LightSample, chosen with probability `choice`.
void punctual_light_sample(PassConstants c, uint index, float choice, out LightSample s) {
    GpuPunctualLight light = PunctualLights(c.punctual_lights).v[index];
    s.punctual = index;
    s.delta = true;
    s.at_infinity = light.kind == PUNCTUAL_DIRECTIONAL;
    s.point_or_direction = s.at_infinity ? -light.direction : light.position;
    s.radiance = light.intensity;
    s.normal = vec3(0.0);
    s.pdf = choice;
}

// `ctx`: the shading point, for the light BVH; the other strategies ignore it.
bool sample_direct_light(PassConstants c, LightContext ctx, float u_light, vec2 u_point, out LightSample s) {
    s = LightSample(vec3(0.0, 1.0, 0.0), false, vec3(0.0), 0.0, vec3(0.0), false, 0u, 0.0);
    float p_environment = c.environment_choice;
    if (HAS_ENVIRONMENT && u_light < p_environment) {
        float u_pixel = min(u_light / p_environment, float_below(1.0));
        float pdf;
        if (!environment_sample(c, u_pixel, u_point, s.point_or_direction, s.radiance, pdf)) {
            return false;
        }
        s.at_infinity = true;
        s.pdf = p_environment * pdf;
        return true;
    }
    u_light = min((u_light - p_environment) / (1.0 - p_environment), float_below(1.0));
    float outside = 1.0 - p_environment;
    if (HAS_PUNCTUAL_LIGHTS && c.light_culling != LIGHT_CULLING_OFF && ctx.spatial) {
        // Lights of finite range: among those the point's cell lists; the others are chosen
        // below as without culling, from the rest of the light power.
        uint cell = light_cell(c, ctx.point);
        float p_ranged = ranged_share(c, cell);
        if (u_light < p_ranged) {
            float probability;
            uint ranged = ranged_light_choose(c, cell, ctx, min(u_light / p_ranged, float_below(1.0)), probability);
            if (ranged == NO_RANGED_LIGHT) {
                return false;
            }
            uint index = CullLights(c.cull_lights).v[ranged].punctual;
            punctual_light_sample(c, index, outside * p_ranged * probability, s);
            return s.pdf > 0.0;
        }
        u_light = min((u_light - p_ranged) / (1.0 - p_ranged), float_below(1.0));
        outside *= 1.0 - p_ranged;
    }
    float p_punctual = c.punctual_choice;
    if (HAS_PUNCTUAL_LIGHTS && u_light < p_punctual) {
        // By the CDF over their powers (light_tree.glsl's flat-CDF sampler); with the light
        // BVH, the CDF holds only the directional lights, the others being in the BVH.
        uint index = light_cdf_sample(c.punctual_cdf, c.punctual_count, min(u_light / p_punctual, float_below(1.0)));
        float probability = light_cdf_probability(c.punctual_cdf, c.punctual_count, index);
        punctual_light_sample(c, index, outside * p_punctual * probability, s);
        return s.pdf > 0.0;
    }
    bool bvh = chooses_by_light_bvh(c.light_selection);
    if (bvh ? c.light_bvh == 0ul : c.light_count == 0) {
        return false;
    }
    u_light = min((u_light - p_punctual) / (1.0 - p_punctual), float_below(1.0));
    float share = outside * (1.0 - p_punctual);
    uint light;
    float probability;
    if (bvh) {
        light = light_bvh_sample(c.light_bvh, 0xffffffffu, ctx, u_light, probability);
        if (light == 0xffffffffu) {
            return false;
        }
        if (light >= c.light_count) {
            if (!HAS_PUNCTUAL_LIGHTS) {
                return false;
            }
            punctual_light_sample(c, light - c.light_count, share * probability, s);
            return s.pdf > 0.0;
        }
    } else {
        light = light_select(c.light_selection, c.light_tree, c.light_cdf, c.light_count, c.light_tree_arity, u_light);
        if (light >= c.light_count) {
            return false;
        }
        probability = light_selection_probability(c.light_selection, c.light_tree, c.light_cdf, c.light_count,
                                                  c.light_tree_arity, light);
    }
    float area_density;
    if (!sample_light(c, light, probability, u_point, s.point_or_direction, s.normal, s.radiance, s.clearcoat,
                      area_density)) {
        return false;
    }
    s.pdf = share * area_density;
    return s.pdf > 0.0;
}

// The shadow segment from `origin` to a light sample: direction, length, the radiance
// arriving (for a point or spot light: intensity over distance squared, in its cone and
// range, as KHR_lights_punctual recommends), and the sample's density per solid angle (per
// light for a delta light). False when the light sends nothing this way.
bool light_segment(PassConstants c, LightSample s, vec3 origin, out vec3 direction, out float distance,
                   out vec3 radiance, out float pdf) {
    radiance = s.radiance;
    pdf = s.pdf;
    if (s.at_infinity) {
        direction = s.point_or_direction;
        distance = ENVIRONMENT_DISTANCE;
        return true;
    }
    vec3 to_light = s.point_or_direction - origin;
    float distance2 = dot(to_light, to_light);
    distance = sqrt(distance2);
    direction = to_light / distance;
    if (HAS_PUNCTUAL_LIGHTS && s.delta) {
        GpuPunctualLight light = PunctualLights(c.punctual_lights).v[s.punctual];
        float falloff = 1.0 / distance2;
        if (light.range > 0.0) {
            float r = distance / light.range;
            falloff *= clamp(1.0 - r * r * r * r, 0.0, 1.0);
        }
        if (light.kind == PUNCTUAL_SPOT) {
            float t = clamp((dot(light.direction, -direction) - light.cos_outer)
                            / max(light.cos_inner - light.cos_outer, 1e-3), 0.0, 1.0);
            falloff *= t * t;
        }
        radiance *= falloff;
        return falloff > 0.0 && pdf > 0.0;
    }
    float cos_light = -dot(direction, s.normal);
    radiance *= coat_over_emission(s.clearcoat, cos_light);
    pdf *= distance2 / cos_light;
    return cos_light > 0.0 && pdf > 0.0;
}

float power_heuristic(float a, float b) {
    float a2 = a * a;
    return a2 / (a2 + b * b);
}

// What a path that leaves the scene along `direction` brings back from the environment,
// weighted against next-event estimation (throughput.w as in shade_hit).
vec3 environment_seen(PassConstants c, vec3 direction, vec4 throughput) {
    if (!HAS_ENVIRONMENT || c.environment_kind == ENVIRONMENT_NONE) {
        return vec3(0.0);
    }
    float weight = 1.0;
    if (throughput.w > 0.0) {
        weight = power_heuristic(throughput.w, c.environment_choice * environment_pdf(c, direction));
    }
    return throughput.xyz * environment_radiance(c, direction) * weight;
}

#endif
