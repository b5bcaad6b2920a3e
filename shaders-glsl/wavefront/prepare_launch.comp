#version 460
//
// One thread before a queue's kernel (push.argument = the queue): moves the queue's count to
// the launch, so that the kernels after it append from zero, and writes the indirect
// arguments of that launch (compute groups and ray-tracing launch size) and of the counting
// sort before it. Also keeps the render's counts: rays, items and lanes.
#extension GL_GOOGLE_include_directive : require

#include "queues.glsl"
#include "sort_layout.glsl"

layout(local_size_x = 1) in;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint queue = push.argument;
    uint count = queues.q.queued[queue];
    queues.q.queued[queue] = 0;
    // Where shading keeps extend's order (route_hit.glsl), it spans extend's launch, the paths
    // that extend ended included.
    uint launch = queue == QUEUE_SHADE && c.shade_in_extend_order != 0 ? queues.q.launched[QUEUE_EXTEND] : count;
    queues.q.launched[queue] = launch;
    if (queue == QUEUE_EXTEND) {
        queues.q.extend_groups = groups_for(count, WAVEFRONT_GROUP);
        queues.q.extend_launch = uvec4(count, 1, 1, 0);
        queues.q.extend_rays += count;
    } else if (queue == QUEUE_SHADE) {
        queues.q.shade_groups = groups_for(launch, WAVEFRONT_GROUP);
    } else {
        queues.q.connect_groups = groups_for(count, WAVEFRONT_GROUP);
        queues.q.connect_launch = uvec4(count, 1, 1, 0);
        queues.q.shadow_rays += count;
    }
    // The sort before this launch, if any: the shade queue's, or the ray sort of the others.
    bool sorting = queue == QUEUE_SHADE ? c.sort_buckets > 0 : c.ray_sort_buckets > 0;
    uint sorted = sorting ? count : 0;
    queues.q.sort_groups = groups_for(sorted, SORT_ITEMS_PER_GROUP);
    queues.q.sort_offsets_groups = uvec4(sorted > 0 ? 1 : 0, 1, 1, 0);
    // Counter 0 is generate's; queue q's kernel is counter q + 1.
    Counters counters = Counters(c.kernel_counters);
    uint lanes = queue == QUEUE_SHADE ? WAVEFRONT_GROUP : c.launch_lanes;
    counters.v[queue + 1].items += count;
    counters.v[queue + 1].lanes += uint64_t((launch + lanes - 1) / lanes * lanes);
    counters.v[queue + 1].busy_launches += count > 0 ? 1 : 0;
}
