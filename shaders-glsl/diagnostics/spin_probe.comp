#version 460
//
// A kernel that runs for as long as it is told: the hang tests need one that outlasts the
// GPU timeout without being an endless loop (a real hang would outlive the test process's
// device on some drivers).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 64) in;

layout(push_constant, scalar) uniform PushBlock {
    SpinProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Target { uint v[]; };

void main() {
    uint state = gl_GlobalInvocationID.x;
    for (uint i = 0; i < push.iterations; ++i) {
        state = state * 1664525u + 1013904223u;
    }
    // Written for one state in 2^32 only, but it keeps the loop from being optimised away.
    if (state == 0x9E3779B9u) {
        Target(push.target).v[0] = state;
    }
}
