// The trace floor's recording (src/trace/floor.rs): with a log in the pass constants, extend
// and connect append every ray they trace, so that the same streams can be traced again with
// trivial shaders and a render be set against the cost of its rays alone. Off (no log), one
// uniform branch.
#ifndef WAVETRACE_RAY_LOG_GLSL
#define WAVETRACE_RAY_LOG_GLSL

#include "common.glsl"

layout(buffer_reference, scalar) buffer LoggedRays { ProbeRay v[]; };
layout(buffer_reference, scalar) buffer RayLogCounts { uint v[2]; };

// `shadow`: which log, the shadow rays' (1) or the extension rays' (0).
void log_ray(PassConstants c, uint shadow, vec3 origin, vec3 direction, float t_max) {
    uint64_t log = shadow != 0 ? c.shadow_ray_log : c.extension_ray_log;
    if (log == 0) {
        return;
    }
    uint at = atomicAdd(RayLogCounts(c.ray_log_counts).v[shadow], 1u);
    if (at < c.ray_log_capacity) {
        LoggedRays(log).v[at] = ProbeRay(origin, 0.0, direction, t_max);
    }
}

#endif
