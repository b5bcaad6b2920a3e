#version 460
//
// One thread at the end of a sample pass: the next replay of the recording renders the
// next sample.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues queues = Queues(constants().queues);
    queues.q.sample_index += 1;
}
