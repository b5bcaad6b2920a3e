// Next-event estimation's light choice in the wavefront kernels: a light (an emissive
// triangle) by the pass's selection strategy (light_tree.glsl), then a uniform point on it;
// and, for a light that a path hits by BSDF sampling, the density with which this would have
// chosen the same point, from the same stored tree, for the MIS weight.
#ifndef WAVETRACE_LIGHTS_GLSL
#define WAVETRACE_LIGHTS_GLSL

#include "scene.glsl"
#include "light_tree.glsl"

layout(buffer_reference, scalar) readonly buffer LightMap { uvec2 v[]; };
layout(buffer_reference, scalar) readonly buffer FirstLights { uint v[]; };

const uint NOT_A_LIGHT = 0xffffffffu;

// A point on a light: where, its front normal, its radiance, and its density per unit area
// (selection probability over the triangle's area). False when no light can be chosen.
bool sample_light(PassConstants c, float u_light, vec2 u_point, out vec3 position, out vec3 normal,
                  out vec3 radiance, out float area_density) {
    position = vec3(0.0);
    normal = vec3(0.0);
    radiance = vec3(0.0);
    area_density = 0.0;
    uint light = light_select(c.light_selection, c.light_tree, c.light_cdf, c.light_count, c.light_tree_arity, u_light);
    if (light >= c.light_count) {
        return false;
    }
    float probability =
        light_selection_probability(c.light_selection, c.light_tree, c.light_cdf, c.light_count, c.light_tree_arity, light);
    uvec2 entry = LightMap(c.light_map).v[light];
    WorldTriangle emitter = world_triangle(c.positions, c.indices, c.instances, c.meshes, entry.x, entry.y);
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
    radiance = Materials(c.materials).v[emitter.mesh.material].emission;
    area_density = probability / (0.5 * twice_area);
    return true;
}

// The density per unit area with which sample_light picks a point on `triangle` of
// `instance` (of world-space `area`); 0 for a triangle that is not a light.
float light_hit_area_density(PassConstants c, uint instance, uint triangle, float area) {
    uint first = FirstLights(c.instance_light_offset).v[instance];
    if (c.light_count == 0 || first == NOT_A_LIGHT || !(area > 0.0)) {
        return 0.0;
    }
    float probability = light_selection_probability(c.light_selection, c.light_tree, c.light_cdf, c.light_count,
                                                    c.light_tree_arity, first + triangle);
    return probability / area;
}

float power_heuristic(float a, float b) {
    float a2 = a * a;
    return a2 / (a2 + b * b);
}

#endif
