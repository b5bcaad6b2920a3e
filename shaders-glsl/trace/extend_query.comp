#version 460
//
// Extend, ray-query backend: closest hit of every queued path's ray.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#define SUBGROUP_APPEND
#include "wavefront.glsl"
#include "route_hit.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= Queues(c.queues).q.extend_count) {
        return;
    }
    uint path = Uints(c.extend_queue).v[index];
    vec3 origin = Vec4s(c.ray_origins).v[path].xyz;
    vec3 direction = Vec4s(c.ray_directions).v[path].xyz;
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level), gl_RayFlagsOpaqueEXT, 0xff,
                          origin, 0.0, direction, 1e30);
    while (rayQueryProceedEXT(query)) {
    }
    // The committed-intersection getters are undefined without a hit (lavapipe faults), so
    // they are called only after the type says there is one.
    bool hit = rayQueryGetIntersectionTypeEXT(query, true) == gl_RayQueryCommittedIntersectionTriangleEXT;
    float t = 0.0;
    uint instance = 0;
    uint primitive = 0;
    if (hit) {
        t = rayQueryGetIntersectionTEXT(query, true);
        instance = uint(rayQueryGetIntersectionInstanceIdEXT(query, true));
        primitive = uint(rayQueryGetIntersectionPrimitiveIndexEXT(query, true));
    }
    route_hit(c, path, hit, t, instance, primitive);
}
