#version 460
//
// Connect, ray-query backend: is anything between the surface and the light point?
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "wavefront.glsl"
#include "connect.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= Queues(c.queues).q.connect_count) {
        return;
    }
    uint path = Uints(c.connect_queue).v[index];
    vec4 origin = Vec4s(c.shadow_origins).v[path];
    vec3 direction = Vec4s(c.shadow_directions).v[path].xyz;
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level),
                          gl_RayFlagsOpaqueEXT | gl_RayFlagsTerminateOnFirstHitEXT, 0xff,
                          origin.xyz, 0.0, direction, origin.w);
    while (rayQueryProceedEXT(query)) {
    }
    finish_connect(c, path, rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT);
}
