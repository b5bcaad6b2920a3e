#version 460
//
// One thread between extend and shade: turns the shade queue's count into indirect
// dispatch arguments and empties the extend and connect queues that shade fills, so no count ever
// travels to the CPU.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues queues = Queues(constants().queues);
    queues.q.shade_groups = uvec4((queues.q.shade_count + WAVEFRONT_GROUP - 1) / WAVEFRONT_GROUP, 1, 1, 0);
    queues.q.extend_count = 0;
    queues.q.connect_count = 0;
}
