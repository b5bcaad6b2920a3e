// The megakernel in compute, the body of trace_paths_query.comp and trace_paths_software.comp:
// one thread per pixel traces its whole path, through trace_rays.glsl's backend.
#extension GL_KHR_shader_subgroup_arithmetic : require

#extension GL_EXT_shader_atomic_int64 : require

// Compute has subgroup operations everywhere; raygen shaders not (lavapipe), so only this
// backend offers --cull-scalarise's subgroup walk.
#define LIGHT_CULLING_SCALARISED
#include "wavefront.glsl"
#include "trace_rays.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

// trace_paths.glsl's one trace a turn: one call site for our own traversal; ray queries have
// none to share, so they branch.
bool trace_segment(PassConstants c, vec3 origin, vec3 direction, float t_max, bool occlusion, out HitRecord hit) {
#ifdef SOFTWARE_TRACE
    return trace_closest_or_occluded(c, origin, direction, occlusion ? t_max : 1e30, occlusion, hit);
#else
    if (occlusion) {
        hit = HitRecord(-1.0, 0, 0, 0);
        return trace_occluded(c, origin, direction, t_max);
    }
    return trace_closest(c, origin, direction, hit);
#endif
}

#include "trace_paths.glsl"

void main() {
    PassConstants c = constants();
    // Rows of groups past the device's group count limit (TraceKernel::record_per_pixel).
    uint path = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WAVEFRONT_GROUP;
    uint sample_index;
    bool traces = path < c.crop_width * c.crop_height && launch_sample(c, gl_WorkGroupID.z, sample_index);
    uvec2 rays = traces ? trace_path(c, crop_pixel(c, path), sample_index) : uvec2(0);
    // One atomic per subgroup for the pass's ray counts.
    uvec2 totals = uvec2(subgroupAdd(rays.x), subgroupAdd(rays.y));
    if (subgroupElect()) {
        atomicAdd(Queues(c.queues).q.extend_rays, uint64_t(totals.x));
        atomicAdd(Queues(c.queues).q.shadow_rays, uint64_t(totals.y));
    }
}
