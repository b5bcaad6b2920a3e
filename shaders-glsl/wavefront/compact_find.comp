#version 460
//
// Compaction, first half, one thread per path slot: free slots below the kept-path count and
// busy paths at or above it go to two lists of equal length (as many paths lie above as
// slots are free below). The lists borrow the shade queue and its keys, idle while every path
// waits for extend.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require

#include "wavefront.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

// One atomic per subgroup on `counter` (0: free slots, 1: moving paths).
uint append(bool wants, uint counter) {
    uvec4 ballot = subgroupBallot(wants);
    uint count = subgroupBallotBitCount(ballot);
    uint base = 0;
    if (count > 0 && subgroupElect()) {
        Queues queues = Queues(constants().queues);
        base = counter == 0 ? atomicAdd(queues.q.free_slots, count) : atomicAdd(queues.q.moving_paths, count);
    }
    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
}

void main() {
    PassConstants c = constants();
    uint slot = gl_GlobalInvocationID.x;
    if (slot >= c.path_slots) {
        return;
    }
    uint kept = Queues(c.queues).q.kept_paths;
    bool in_use = Uints(c.path_pixels).v[slot] != INACTIVE_PATH;
    bool free_below = slot < kept && !in_use;
    bool above = slot >= kept && in_use;
    uint free_index = append(free_below, 0);
    uint moving_index = append(above, 1);
    if (free_below) {
        Uints(c.shade_queue).v[free_index] = slot;
    }
    if (above) {
        Uints(c.shade_keys).v[moving_index] = slot;
    }
}
