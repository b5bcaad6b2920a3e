// The trace floor's recording (src/trace/floor.rs): with a log in the pass constants, extend
// and connect append every ray they trace, so that the same streams can be traced again with
// trivial shaders and a render be set against the cost of its rays alone. Off (no log), one
// uniform branch. Each ray's tag (its path's pixel, and the path's packed sample and bounce
// or ~0 where the kernel does not know them) follows the log's `ray_log_capacity` rays, so
// that the rays can be traced again in another order (examples/bench_trace_floor.rs).
#ifndef WAVETRACE_RAY_LOG_GLSL
#define WAVETRACE_RAY_LOG_GLSL

#include "wavefront.glsl"

layout(buffer_reference, scalar) buffer LoggedRays { ProbeRay v[]; };
layout(buffer_reference, scalar) buffer RayLogCounts { uint v[2]; };
layout(buffer_reference, scalar) buffer RayLogTags { uvec2 v[]; };

// `shadow`: which log, the shadow rays' (1) or the extension rays' (0).
void log_ray(PassConstants c, uint shadow, vec3 origin, vec3 direction, float t_max, uvec2 tag) {
    uint64_t log = shadow != 0 ? c.shadow_ray_log : c.extension_ray_log;
    if (log == 0) {
        return;
    }
    uint at = atomicAdd(RayLogCounts(c.ray_log_counts).v[shadow], 1u);
    if (at < c.ray_log_capacity) {
        LoggedRays(log).v[at] = ProbeRay(origin, 0.0, direction, t_max);
        // The tags start past the log's capacity of 32-byte ProbeRays (RayLog::new).
        RayLogTags(log + uint64_t(c.ray_log_capacity) * 32u).v[at] = tag;
    }
}

// An extension ray of path slot `path`, tagged with its pixel, sample and bounce. The tag is
// read only when a log is on.
void log_extension_ray(PassConstants c, uint path, vec3 origin, vec3 direction, float t_max) {
    if (c.extension_ray_log != 0) {
        log_ray(c, 0, origin, direction, t_max, uvec2(Uints(c.path_pixels).v[path], Uints(c.path_samples).v[path]));
    }
}

// A shadow ray of shadow slot `shadow`, tagged with its pixel (its sample and bounce are not
// kept with it).
void log_shadow_ray(PassConstants c, uint shadow, vec3 origin, vec3 direction, float t_max) {
    if (c.shadow_ray_log != 0) {
        log_ray(c, 1, origin, direction, t_max, uvec2(Uints(c.shadow_pixels).v[shadow], ~0u));
    }
}

#endif
