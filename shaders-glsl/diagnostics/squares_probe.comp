#version 460
//
// Writes Squares32 of `count` consecutive counters under one key, then the same counters as
// uniform floats, so that tests compare both with the CPU twin bit for bit.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "squares.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    SquaresProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Words {
    uint v[];
};

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.count) {
        return;
    }
    uint64_t counter = push.first_counter + uint64_t(index);
    Words(push.values).v[index] = squares32(counter, push.key);
    Words(push.values).v[push.count + index] = floatBitsToUint(squares_uniform(counter, push.key));
}
