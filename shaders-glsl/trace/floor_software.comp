#version 460
//
// The trace floor traced by our own traversal (include/software_bvh.glsl) rather than the
// driver's: floor_query.comp's twin over a software hierarchy.
#extension GL_GOOGLE_include_directive : require
#define SUBGROUP_COUNT
#define SOFTWARE_FLOOR
#include "trace_floor.glsl"
#include "software_bvh.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

layout(buffer_reference, scalar) writeonly buffer SoftwareResults { vec2 v[]; };

void main() {
    // Rows of groups past the device's group count limit (TraceKernel::record_per_pixel).
    uint index = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WAVEFRONT_GROUP;
    if (index >= push.count) {
        return;
    }
    uint per_thread = max(push.rays_per_thread, 1u);
    for (uint k = 0; k < per_thread; ++k) {
        uint ray_index = (push.first + index) * per_thread + k;
        ProbeRay ray = FloorRays(push.rays).v[ray_index];
        if (ray.t_max <= 0.0) {
            continue;
        }
        float t = ray.t_max;
        int slot = software_trace(push.nodes, push.triangles, ray.origin, ray.t_min, ray.direction, t,
                                  push.shadow != 0);
        count_hits(slot >= 0);
        if (push.results != 0) {
            SoftwareResults(push.results).v[ray_index] = vec2(t, intBitsToFloat(slot));
        }
    }
}
