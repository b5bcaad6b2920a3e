#version 460
//
// One thread between shade and connect: indirect arguments for the shadow rays, for the
// compute (ray query) and ray-tracing-pipeline backends.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    Queues queues = Queues(constants().queues);
    uint count = queues.q.connect_count;
    queues.q.connect_groups = uvec4((count + WAVEFRONT_GROUP - 1) / WAVEFRONT_GROUP, 1, 1, 0);
    queues.q.connect_launch = uvec4(count, 1, 1, 0);
    queues.q.shadow_rays += count;
}
