#version 460
//
// Extend, ray-query backend: closest hit of every queued path's ray.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#define SUBGROUP_APPEND
#include "route_hit.glsl"
#include "alpha.glsl"
#include "ray_log.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes that leave here take no part in route_hit's subgroup append, which counts only
    // the lanes still running.
    if (index >= launched(QUEUE_EXTEND)) {
        return;
    }
    uint path = Uints(c.ray_sort_buckets > 0 ? c.sorted_extend_queue : c.extend_queue).v[index];
    vec3 origin = Vec3s(c.ray_origins).v[path];
    vec3 direction = Vec3s(c.ray_directions).v[path];
    bool last_segment = on_last_segment(c, path);
    log_extension_ray(c, path, origin, direction, 1e30);
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level), gl_RayFlagsNoneEXT, 0xff,
                          origin, 0.0, direction, 1e30);
    PROCEED_WITH_ALPHA(c, query, origin, direction)
    // The committed-intersection getters are undefined without a hit (lavapipe faults), so
    // they are called only after the type says there is one.
    bool hit = rayQueryGetIntersectionTypeEXT(query, true) == gl_RayQueryCommittedIntersectionTriangleEXT;
    HitRecord record = HitRecord(0.0, 0, 0, 0);
    if (hit) {
        record = HitRecord(rayQueryGetIntersectionTEXT(query, true),
                           hit_instance(query, true),
                           uint(rayQueryGetIntersectionPrimitiveIndexEXT(query, true)), 0);
    }
    route_hit(c, path, hit, record, last_segment);
}
