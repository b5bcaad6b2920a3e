#version 460
//
// One thread at the end of a megakernel pass: the pass's ray counts into the render's
// totals, and the next replay renders the next sample.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues queues = Queues(constants().queues);
    queues.q.extend_rays += queues.q.extend_count;
    queues.q.shadow_rays += queues.q.connect_count;
    queues.q.extend_count = 0;
    queues.q.connect_count = 0;
    queues.q.sample_index += 1;
}
