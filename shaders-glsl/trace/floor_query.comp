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
    // Every lane reaches the subgroup count below; those past the end count nothing.
    bool hit = false;
    if (index < push.count) {
        ProbeRay ray = FloorRays(push.rays).v[push.first + index];
        uint flags = push.shadow != 0 ? gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT : gl_RayFlagsOpaqueEXT;
        rayQueryEXT query;
        rayQueryInitializeEXT(query, accelerationStructureEXT(push.top_level), flags, 0xff, ray.origin, ray.t_min,
                              ray.direction, ray.t_max);
        while (rayQueryProceedEXT(query)) {
        }
        hit = rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT;
    }
    count_hits(hit);
}
