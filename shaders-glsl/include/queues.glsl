// The queues of the kernel graph (src/integrator/kernel_graph.rs declares which kernel hands
// paths to which; its tests check these numbers and every enqueue below against it).
// A kernel appends to its successors' queues with `enqueue`; with SUBGROUP_APPEND (compute
// kernels always, raygen shaders where the device has subgroup ballot there) one atomic per
// subgroup reserves the whole subgroup's run: with a million paths a launch, per-lane atomics
// on one counter were two thirds of the extend kernel's time on the H100.
#ifndef WAVETRACE_QUEUES_GLSL
#define WAVETRACE_QUEUES_GLSL

#ifdef SUBGROUP_APPEND
#extension GL_KHR_shader_subgroup_ballot : require
#endif

#include "wavefront.glsl"

// QUEUE_* come from interface.glsl.

uint queue_reserve(uint queue, uint count) {
    Queues queues = Queues(constants().queues);
    if (queue == QUEUE_EXTEND) {
        return atomicAdd(queues.q.queued.x, count);
    }
    if (queue == QUEUE_SHADE) {
        return atomicAdd(queues.q.queued.y, count);
    }
    return atomicAdd(queues.q.queued.z, count);
}

// This lane's position in `queue` where `wants` holds (every lane of the subgroup must call).
uint enqueue(uint queue, bool wants) {
#ifdef SUBGROUP_APPEND
    uvec4 ballot = subgroupBallot(wants);
    uint count = subgroupBallotBitCount(ballot);
    uint base = 0;
    if (count > 0 && subgroupElect()) {
        base = queue_reserve(queue, count);
    }
    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
#else
    return wants ? queue_reserve(queue, 1) : 0;
#endif
}

// The bucket of a ray in the sort before extend: its direction's octant, then the cell of its
// origin in a grid of RAY_SORT_GRID^3 cells over the scene's bounds (Morton order). Rays of one bucket start near
// each other and head the same way, so a warp's traversals visit the same nodes.
uint ray_sort_key(PassConstants c, vec3 origin, vec3 direction) {
    uint octant = (direction.x < 0.0 ? 1u : 0u) | (direction.y < 0.0 ? 2u : 0u) | (direction.z < 0.0 ? 4u : 0u);
    uvec3 cell = uvec3(clamp((origin - c.ray_sort_origin) * c.ray_sort_scale, vec3(0.0), vec3(float(RAY_SORT_GRID - 1u))));
    uint morton = 0;
    for (uint bit = 0; bit < RAY_SORT_GRID_BITS; ++bit) {
        morton |= ((cell.x >> bit) & 1u) << (3 * bit) | ((cell.y >> bit) & 1u) << (3 * bit + 1)
                  | ((cell.z >> bit) & 1u) << (3 * bit + 2);
    }
    return octant * RAY_SORT_CELLS + morton;
}

// How many items the current launch of `queue` has (set by prepare_launch).
uint launched(uint queue) {
    return Queues(constants().queues).q.launched[queue];
}

#endif
