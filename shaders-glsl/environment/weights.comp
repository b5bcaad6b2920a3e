#version 460
//
// The environment map's sampling weights, one per pixel: the integral over the pixel of the
// luminance as environment.glsl interpolates it, x sin(theta) at the row's centre, since
// equal-sized pixels near the poles cover less of the sphere. Interpolation reaches half a
// texel past each centre, so the integral weighs the 3 x 3 texels around a pixel by
// (1/8, 3/4, 1/8) in each direction (u wrapping, v clamped as the lookup does): a black pixel
// next to a bright one keeps the density its interpolated radiance needs. The light tree
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
    uint x = pixel % push.width;
    uint y = pixel / push.width;
    const float FOOTPRINT[3] = float[3](0.125, 0.75, 0.125);
    vec3 integral = vec3(0.0);
    for (int j = 0; j < 3; ++j) {
        uint row = uint(clamp(int(y) + j - 1, 0, int(push.height) - 1)) * push.width;
        for (int i = 0; i < 3; ++i) {
            uint column = (x + push.width + uint(i) - 1u) % push.width;
            integral += FOOTPRINT[j] * FOOTPRINT[i] * Texels(push.texels).v[row + column];
        }
    }
    float theta = (float(y) + 0.5) / float(push.height) * 3.14159265358979;
    float weight = dot(integral, vec3(0.2126, 0.7152, 0.0722)) * sin(theta);
    Weights(push.weights).v[pixel] = weight > 0.0 && !isinf(weight) ? weight : 0.0;
}
