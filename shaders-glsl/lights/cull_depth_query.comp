#version 460
//
// Light culling's depth kernel, ray-query backend: cull_depth.rgen's twin, one invocation per
// pixel corner, in 8x8 blocks (a 2D grid of groups stays within the device's group count
// limits at any image size).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "cull_depth.glsl"

layout(local_size_x = 8, local_size_y = 8) in;

void main() {
    uint x = gl_GlobalInvocationID.x;
    uint y = gl_GlobalInvocationID.y;
    if (x > push.width || y > push.height) {
        return;
    }
    vec3 origin;
    vec3 direction;
    float tmin;
    corner_ray(x, y, origin, direction, tmin);
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(push.top_level), gl_RayFlagsOpaqueEXT, 0xff, origin, tmin,
                          direction, 1e30);
    while (rayQueryProceedEXT(query)) {
    }
    float t = rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT
        ? rayQueryGetIntersectionTEXT(query, true)
        : -1.0;
    store_corner_depth(x, y, direction, t);
}
