#version 460
//
// The environment map's sampling weights, one per pixel: luminance x sin(theta) at the row's
// centre, since equal-sized pixels near the poles cover less of the sphere. The light tree
// over these is the map's 2D sampling distribution (its levels over whole rows play the
// marginal, those within a row the conditional). Weights that are not finite and positive
// are 0.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"

layout(local_size_x = ENVIRONMENT_WEIGHTS_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    EnvironmentWeightsPush push;
};

layout(buffer_reference, scalar) readonly buffer Texels { vec3 v[]; };
layout(buffer_reference, scalar) writeonly buffer Weights { float v[]; };

void main() {
    uint pixel = flat_workgroup_index(push.groups_x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (pixel >= push.width * push.height) {
        return;
    }
    vec3 texel = Texels(push.texels).v[pixel];
    float theta = (float(pixel / push.width) + 0.5) / float(push.height) * 3.14159265358979;
    float weight = dot(texel, vec3(0.2126, 0.7152, 0.0722)) * sin(theta);
    Weights(push.weights).v[pixel] = weight > 0.0 && !isinf(weight) ? weight : 0.0;
}
