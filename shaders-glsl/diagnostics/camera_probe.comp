#version 460
//
// Projects points onto the image with the kernels' camera (camera.glsl), so that tests can
// compare with the CPU twin: per point (image x, image y, cos theta, importance), or
// (-1, -1, 0, 0) where the point is not on the image.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "camera.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    CameraProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Constants { PassConstants c; };
layout(buffer_reference, scalar) readonly buffer Points { vec3 v[]; };
layout(buffer_reference, scalar) writeonly buffer Results { vec4 v[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) {
        return;
    }
    PassConstants c = Constants(push.constants).c;
    vec2 position;
    float cos_theta;
    bool visible = camera_project(c, Points(push.points).v[i], position, cos_theta);
    Results(push.results).v[i] = visible ? vec4(position, cos_theta, camera_importance(c, cos_theta))
                                         : vec4(-1.0, -1.0, 0.0, 0.0);
}
