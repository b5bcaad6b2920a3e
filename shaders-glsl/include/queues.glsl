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
#extension GL_EXT_shader_atomic_int64 : require
#endif

#include "wavefront.glsl"

// QUEUE_* come from interface.glsl.

uint queue_reserve(uint queue, uint count) {
    return atomicAdd(Queues(constants().queues).q.queued[queue], count);
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

#ifdef SUBGROUP_APPEND
// This lane's two positions in `queue`, for `first` and `second` (every lane of the subgroup
// must call): one atomic for both runs.
uvec2 enqueue_two(uint queue, bool first, bool second) {
    uvec4 first_ballot = subgroupBallot(first);
    uvec4 second_ballot = subgroupBallot(second);
    uint first_count = subgroupBallotBitCount(first_ballot);
    uint count = first_count + subgroupBallotBitCount(second_ballot);
    uint base = 0;
    if (count > 0 && subgroupElect()) {
        base = queue_reserve(queue, count);
    }
    base = subgroupBroadcastFirst(base);
    return uvec2(base + subgroupBallotExclusiveBitCount(first_ballot),
                 base + first_count + subgroupBallotExclusiveBitCount(second_ballot));
}

// The extend and connect counters as one word (QUEUE_EXTEND's the low half): a run of each
// reserved with one atomic. Atomics on one counter are served one after another (about 2 ns
// apart on the H100, as compaction measured) and a lane waits for its result, so a shade
// kernel that reserved its two runs apart, one atomic each per subgroup, spent up to a third
// of its time waiting (docs/BENCHMARKS.md). Neither half carries into the other: each stays
// below the path or shadow capacity.
layout(buffer_reference, scalar) coherent buffer QueuePair { uint64_t extend_and_connect; };

uvec2 reserve_extend_and_connect(uint extend_count, uint connect_count) {
    uint64_t bases = atomicAdd(QueuePair(constants().queues).extend_and_connect,
                               uint64_t(connect_count) << 32 | uint64_t(extend_count));
    return uvec2(uint(bases), uint(bases >> 32));
}

#ifdef WORKGROUP_APPEND
shared uint workgroup_counts[2];
shared uvec2 workgroup_bases;
#endif

// This lane's positions in the extend and connect queues where `extend` and `connect` hold.
// With WORKGROUP_APPEND, one atomic a workgroup (every invocation calls, in uniform control
// flow; the counts are reset before the first barrier and read after the second, the bases
// written between the second and the third, so back-to-back calls never see each other's);
// else one a subgroup (every lane calls).
uvec2 enqueue_extend_and_connect(bool extend, bool connect) {
#ifdef WORKGROUP_APPEND
    if (gl_LocalInvocationIndex == 0) {
        workgroup_counts[0] = 0;
        workgroup_counts[1] = 0;
    }
    barrier();
#endif
    uvec4 extend_ballot = subgroupBallot(extend);
    uvec4 connect_ballot = subgroupBallot(connect);
    uint extend_count = subgroupBallotBitCount(extend_ballot);
    uint connect_count = subgroupBallotBitCount(connect_ballot);
    uvec2 bases = uvec2(0);
    if (subgroupElect()) {
#ifdef WORKGROUP_APPEND
        bases = uvec2(atomicAdd(workgroup_counts[0], extend_count), atomicAdd(workgroup_counts[1], connect_count));
#else
        if (extend_count + connect_count > 0) {
            bases = reserve_extend_and_connect(extend_count, connect_count);
        }
#endif
    }
    uvec2 slots = subgroupBroadcastFirst(bases)
                  + uvec2(subgroupBallotExclusiveBitCount(extend_ballot), subgroupBallotExclusiveBitCount(connect_ballot));
#ifdef WORKGROUP_APPEND
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        uint extend_total = workgroup_counts[0];
        uint connect_total = workgroup_counts[1];
        workgroup_bases = extend_total + connect_total > 0 ? reserve_extend_and_connect(extend_total, connect_total)
                                                           : uvec2(0);
    }
    barrier();
    slots += workgroup_bases;
#endif
    return slots;
}
#endif

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
