#version 460
//
// Writes the Sobol sampler's bits for several (pixel, sample) pairs and dimensions, so that
// tests can compare them bit for bit with the CPU twin (src/sampler.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "sampler.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    SamplerProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Uints {
    uint v[];
};

void main() {
    uint invocation = gl_GlobalInvocationID.x;
    if (invocation >= push.count) {
        return;
    }
    uint pixel = invocation % push.pixels;
    uint sample_index = push.first_sample + invocation / push.pixels;
    for (uint dimension = 0; dimension < push.dimensions; ++dimension) {
        Uints(push.values).v[invocation * push.dimensions + dimension] =
            sobol_sample_bits(push.seed, pixel, sample_index, push.bounce, dimension);
    }
}
