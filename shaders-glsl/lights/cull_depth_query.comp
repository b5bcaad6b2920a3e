#version 460
//
// Light culling's depth kernel, ray-query backend: cull_depth.rgen's twin, one invocation per
// pixel corner in row-major order.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "cull_depth.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    uint row = push.width + 1u;
    uint index = gl_GlobalInvocationID.x;
    if (index >= row * (push.height + 1u)) {
        return;
    }
    uint x = index % row;
    uint y = index / row;
    vec3 direction = corner_direction(x, y);
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(push.top_level), gl_RayFlagsOpaqueEXT, 0xff, push.camera_origin,
                          0.0, direction, 1e30);
    while (rayQueryProceedEXT(query)) {
    }
    float t = rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT
        ? rayQueryGetIntersectionTEXT(query, true)
        : -1.0;
    store_corner_depth(x, y, direction, t);
}
