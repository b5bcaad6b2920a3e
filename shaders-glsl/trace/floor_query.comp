#version 460
//
// The trace floor, ray-query backend: floor.rgen's twin.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require
#define SUBGROUP_COUNT
#include "trace_floor.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    // Rows of groups past the device's group count limit (TraceKernel::record_per_pixel).
    uint index = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * WAVEFRONT_GROUP;
    if (index >= push.count) {
        return;
    }
    uint per_thread = max(push.rays_per_thread, 1u);
    uint flags = push.shadow != 0 ? gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT : gl_RayFlagsOpaqueEXT;
    for (uint k = 0; k < per_thread; ++k) {
        ProbeRay ray = FloorRays(push.rays).v[(push.first + index) * per_thread + k];
        if (ray.t_max <= 0.0) {
            continue;
        }
        rayQueryEXT query;
        rayQueryInitializeEXT(query, accelerationStructureEXT(push.top_level), flags, 0xff, ray.origin, ray.t_min,
                              ray.direction, ray.t_max);
        while (rayQueryProceedEXT(query)) {
        }
        count_hits(rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT);
    }
}
