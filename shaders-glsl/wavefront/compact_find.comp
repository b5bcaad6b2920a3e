#version 460
//
// Compaction, first half: free slots below the kept-path count and busy paths at or above it
// go to two lists of equal length (as many paths lie above as slots are free below). The
// lists borrow the shade queue and its keys, idle while every path waits for extend.
// A workgroup of 2,048 slots reserves its run of each list with one global atomic: with one
// per subgroup of 32 slots, the atomics on the two counters, served one after another, made
// a refill of 2^23 slots take 0.48 ms on the H100 (ajar), against 0.04 ms now.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require

#include "wavefront.glsl"

layout(local_size_x = COMPACT_GROUP) in;

shared uint group_free_slots;
shared uint group_moving_paths;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint kept = queues.q.kept_paths;
    if (gl_LocalInvocationIndex == 0) {
        group_free_slots = 0;
        group_moving_paths = 0;
    }
    barrier();

    // A workgroup's slots, a workgroup apart for each thread, so that each load is coalesced.
    uint first = gl_WorkGroupID.x * COMPACT_SLOTS_PER_GROUP + gl_LocalInvocationIndex;
    uint free_below = 0;
    uint above = 0;
    for (uint i = 0; i < COMPACT_SLOTS_PER_THREAD; ++i) {
        uint slot = first + i * COMPACT_GROUP;
        if (slot < c.path_slots) {
            bool in_use = Uints(c.path_pixels).v[slot] != INACTIVE_PATH;
            free_below |= uint(slot < kept && !in_use) << i;
            above |= uint(slot >= kept && in_use) << i;
        }
    }

    uint free_count = bitCount(free_below);
    uint moving_count = bitCount(above);
    uint free_index = subgroupExclusiveAdd(free_count);
    uint moving_index = subgroupExclusiveAdd(moving_count);
    uint subgroup_free = subgroupAdd(free_count);
    uint subgroup_moving = subgroupAdd(moving_count);
    uint free_offset = 0;
    uint moving_offset = 0;
    if (subgroupElect()) {
        free_offset = atomicAdd(group_free_slots, subgroup_free);
        moving_offset = atomicAdd(group_moving_paths, subgroup_moving);
    }
    free_index += subgroupBroadcastFirst(free_offset);
    moving_index += subgroupBroadcastFirst(moving_offset);
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        uint group_free = group_free_slots;
        uint group_moving = group_moving_paths;
        group_free_slots = group_free > 0 ? atomicAdd(queues.q.free_slots, group_free) : 0;
        group_moving_paths = group_moving > 0 ? atomicAdd(queues.q.moving_paths, group_moving) : 0;
    }
    barrier();
    free_index += group_free_slots;
    moving_index += group_moving_paths;

    for (uint i = 0; i < COMPACT_SLOTS_PER_THREAD; ++i) {
        uint slot = first + i * COMPACT_GROUP;
        if ((free_below >> i & 1u) != 0) {
            Uints(c.shade_queue).v[free_index++] = slot;
        }
        if ((above >> i & 1u) != 0) {
            Uints(c.shade_keys).v[moving_index++] = slot;
        }
    }
}
