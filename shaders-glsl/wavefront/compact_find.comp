#version 460
//
// Compaction, first half, one thread per path slot: free slots below the kept-path count and
// busy paths at or above it go to two lists of equal length (as many paths lie above as
// slots are free below). The lists borrow the shade queue and its keys, idle while every path
// waits for extend.
#extension GL_GOOGLE_include_directive : require

#define SUBGROUP_APPEND
#include "queues.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

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
    uint free_index = enqueue(LIST_FREE_SLOTS, free_below);
    uint moving_index = enqueue(LIST_MOVING_PATHS, above);
    if (free_below) {
        Uints(c.shade_queue).v[free_index] = slot;
    }
    if (above) {
        Uints(c.shade_keys).v[moving_index] = slot;
    }
}
