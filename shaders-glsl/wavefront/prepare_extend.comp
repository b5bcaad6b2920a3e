#version 460
//
// One thread before extend: indirect arguments for the compute (ray query) and the
// ray-tracing-pipeline launch from the extend queue's count; empties the shade queue.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues queues = Queues(constants().queues);
    uint count = queues.q.extend_count;
    queues.q.extend_groups = uvec4((count + WAVEFRONT_GROUP - 1) / WAVEFRONT_GROUP, 1, 1, 0);
    queues.q.extend_launch = uvec4(count, 1, 1, 0);
    queues.q.shade_count = 0;
    queues.q.extend_rays += count;
}
