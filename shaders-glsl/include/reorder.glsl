// Shader execution reordering (VK_NV_ray_tracing_invocation_reorder), for raygen shaders built
// with INVOCATION_REORDER where the device has it: the closest hit is traced as a hit object,
// then the threads are regrouped so that those about to shade the same instance (and so the
// same material) run together, the misses apart, before anything reads the hit. No
// closest-hit or miss shader runs: the hit is read from the object, as extend.rchit writes it.
// The H100 accepts the reorder but says it does not regroup (`wavetrace info`); there, reading
// the hit from the object instead of running the closest-hit shader is what makes extend
// 1-3% faster (docs/BENCHMARKS.md).
#ifndef WAVETRACE_REORDER_GLSL
#define WAVETRACE_REORDER_GLSL

#extension GL_NV_shader_invocation_reorder : require

#include "common.glsl"

bool trace_closest_reordered(PassConstants c, vec3 origin, vec3 direction, out HitRecord hit) {
    hitObjectNV object;
    hitObjectTraceRayNV(object, accelerationStructureEXT(c.top_level), gl_RayFlagsNoneEXT, 0xff, 0, 0, 0, origin, 0.0,
                        direction, 1e30, 0);
    bool found = hitObjectIsHitNV(object);
    // As extend.rchit: one of the two is 0 (src/accel).
    uint instance = found ? uint(hitObjectGetInstanceIdNV(object)) + uint(hitObjectGetGeometryIndexNV(object)) : 0u;
    reorderThreadNV(object, found ? instance + 1u : 0u, c.reorder_hint_bits);
    // A hit's ray now ends at it: its t_max is the hit's t.
    hit = HitRecord(found ? hitObjectGetRayTMaxNV(object) : -1.0, instance,
                    found ? uint(hitObjectGetPrimitiveIndexNV(object)) : 0u, 0u);
    return found;
}

#endif
