// What the light-culling depth kernels share (lights/cull_depth*): the push constants and the
// ray through a pixel corner, whose hit's view depth bounds the screen tiles around it.
#ifndef WAVETRACE_CULL_DEPTH_GLSL
#define WAVETRACE_CULL_DEPTH_GLSL

#include "common.glsl"

layout(push_constant, scalar) uniform PushBlock {
    LightCullingPush push;
};

layout(buffer_reference, scalar) writeonly buffer CornerDepths { float v[]; };

// The ray through image corner (x, y), as camera.glsl's camera_ray_through makes a camera
// ray: from the pinhole (starting at `tmin`, on the near plane), or for an orthographic camera
// from the corner's place on the camera's plane along the axis.
void corner_ray(uint x, uint y, out vec3 origin, out vec3 direction, out float tmin) {
    float sx = (2.0 * float(x) / float(push.width) - 1.0) * push.camera_half_height * push.aspect;
    float sy = (1.0 - 2.0 * float(y) / float(push.height)) * push.camera_half_height;
    if (push.camera_orthographic != 0u) {
        origin = push.camera_origin + push.camera_right * sx + push.camera_up * sy;
        direction = push.camera_forward;
        tmin = push.camera_near;
        return;
    }
    origin = push.camera_origin;
    direction = normalize(push.camera_right * sx + push.camera_up * sy + push.camera_forward);
    tmin = push.camera_near / dot(direction, push.camera_forward);
}

// A hit at distance t along `direction` is at view depth t cos(theta).
void store_corner_depth(uint x, uint y, vec3 direction, float t) {
    float depth = t >= 0.0 ? t * dot(direction, push.camera_forward) : LIGHT_CULLING_NO_DEPTH;
    CornerDepths(push.corner_depths).v[y * (push.width + 1u) + x] = depth;
}

#endif
