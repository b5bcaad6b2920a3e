#version 460
//
// One thread at the end of a megakernel pass: the next replay renders the samples after the
// pass's `argument`.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues(constants().queues).q.sample_index += push.argument;
}
