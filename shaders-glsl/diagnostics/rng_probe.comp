#version 460
//
// Writes RNG_PROBE_DIMENSIONS random floats per path, so tests can compare them bit for bit
// with the CPU twin and check their distribution.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "rng.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    RngProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Floats {
    float v[];
};

void main() {
    uint path = gl_GlobalInvocationID.x;
    if (path >= push.count) {
        return;
    }
    for (uint dimension = 0; dimension < push.dimensions; ++dimension) {
        Floats(push.values).v[path * push.dimensions + dimension] =
            wt_random(push.seed, path, push.sample_index, push.bounce, dimension);
    }
}
