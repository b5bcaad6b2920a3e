#version 460
// variant: fixed
// variant: float_atomic SPLAT_FLOAT_ATOMIC
// variant: float_cas SPLAT_FLOAT_CAS
//
// Connect, ray-query backend: is anything between the surface and the light point? Shadow
// paths are stored in queue order, so the queue position is the shadow path (or, after the ray
// sort, the sorted queue's entry is).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "queues.glsl"
#include "connect.glsl"
#include "alpha.glsl"
#include "ray_log.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= launched(QUEUE_CONNECT)) {
        return;
    }
    uint shadow = c.ray_sort_buckets > 0 ? Uints(c.sorted_connect_queue).v[index] : index;
    vec4 origin = Vec4s(c.shadow_origins).v[shadow];
    vec3 direction = Vec3s(c.shadow_directions).v[shadow];
    log_shadow_ray(c, shadow, origin.xyz, direction, origin.w);
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level),
                          gl_RayFlagsTerminateOnFirstHitEXT, 0xff,
                          origin.xyz, 0.0, direction, origin.w);
    PROCEED_WITH_ALPHA(c, query, origin.xyz, direction)
    finish_connect(c, shadow, rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT);
}
