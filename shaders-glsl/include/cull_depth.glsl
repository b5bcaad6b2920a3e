// What the light-culling depth kernels share (lights/cull_depth*): the push constants and the
// ray through a pixel corner, whose hit's view depth bounds the screen tiles around it.
#ifndef WAVETRACE_CULL_DEPTH_GLSL
#define WAVETRACE_CULL_DEPTH_GLSL

#include "common.glsl"

layout(push_constant, scalar) uniform PushBlock {
    LightCullingPush push;
};

layout(buffer_reference, scalar) writeonly buffer CornerDepths { float v[]; };

// The direction through image corner (x, y) (camera.glsl's camera_direction).
vec3 corner_direction(uint x, uint y) {
    float sx = (2.0 * float(x) / float(push.width) - 1.0) * push.tan_half_yfov * push.aspect;
    float sy = (1.0 - 2.0 * float(y) / float(push.height)) * push.tan_half_yfov;
    return normalize(push.camera_right * sx + push.camera_up * sy + push.camera_forward);
}

// Where the corner's ray starts, as a camera ray does: on the near plane (camera.glsl).
float corner_ray_start(vec3 direction) {
    return push.camera_near / dot(direction, push.camera_forward);
}

// A hit at distance t along `direction` is at view depth t cos(theta).
void store_corner_depth(uint x, uint y, vec3 direction, float t) {
    float depth = t >= 0.0 ? t * dot(direction, push.camera_forward) : LIGHT_CULLING_NO_DEPTH;
    CornerDepths(push.corner_depths).v[y * (push.width + 1u) + x] = depth;
}

#endif
