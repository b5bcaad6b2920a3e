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

// Two runs reserved with one atomic: one in the extend queue and one in the connect queue,
// or both in one queue (`first_queue` = `second_queue`), the second after the first.
uvec2 reserve_two(uint first_queue, uint second_queue, uvec2 counts) {
    if (counts.x + counts.y == 0) {
        return uvec2(0);
    }
    if (first_queue != second_queue) {
        return reserve_extend_and_connect(counts.x, counts.y);
    }
    uint base = queue_reserve(first_queue, counts.x + counts.y);
    return uvec2(base, base + counts.x);
}

#ifdef WORKGROUP_APPEND
shared uint workgroup_counts[2];
shared uvec2 workgroup_bases;
#endif

// This lane's positions in two runs (see reserve_two) where `first` and `second` hold. With
// WORKGROUP_APPEND, one atomic a workgroup (every invocation calls, in uniform control flow;
// the counts are reset before the first barrier and read after the second, the bases written
// between the second and the third, so back-to-back calls never see each other's); else one
// a subgroup (every lane calls).
uvec2 enqueue_two_runs(uint first_queue, uint second_queue, bool first, bool second) {
#ifdef WORKGROUP_APPEND
    if (gl_LocalInvocationIndex == 0) {
        workgroup_counts[0] = 0;
        workgroup_counts[1] = 0;
    }
    barrier();
#endif
    uvec4 first_ballot = subgroupBallot(first);
    uvec4 second_ballot = subgroupBallot(second);
    uvec2 counts = uvec2(subgroupBallotBitCount(first_ballot), subgroupBallotBitCount(second_ballot));
    uvec2 bases = uvec2(0);
    if (subgroupElect()) {
#ifdef WORKGROUP_APPEND
        bases = uvec2(atomicAdd(workgroup_counts[0], counts.x), atomicAdd(workgroup_counts[1], counts.y));
#else
        bases = reserve_two(first_queue, second_queue, counts);
#endif
    }
    uvec2 slots = subgroupBroadcastFirst(bases)
                  + uvec2(subgroupBallotExclusiveBitCount(first_ballot), subgroupBallotExclusiveBitCount(second_ballot));
#ifdef WORKGROUP_APPEND
    barrier();
    if (gl_LocalInvocationIndex == 0) {
        workgroup_bases = reserve_two(first_queue, second_queue, uvec2(workgroup_counts[0], workgroup_counts[1]));
    }
    barrier();
    slots += workgroup_bases;
#endif
    return slots;
}

// This lane's positions in the extend and connect queues where `extend` and `connect` hold.
uvec2 enqueue_extend_and_connect(bool extend, bool connect) {
    return enqueue_two_runs(QUEUE_EXTEND, QUEUE_CONNECT, extend, connect);
}

// This lane's two positions in `queue`, for `first` and `second`.
uvec2 enqueue_two(uint queue, bool first, bool second) {
    return enqueue_two_runs(queue, queue, first, second);
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

// Where the ray sort is on, the key of the ray queued at `slot` of the queue whose keys are at
// `keys` (c.extend_keys or c.connect_keys).
void store_ray_sort_key(PassConstants c, uint64_t keys, uint slot, vec3 origin, vec3 direction) {
    if (c.ray_sort_buckets > 0) {
        Uints(keys).v[slot] = ray_sort_key(c, origin, direction);
    }
}

// How many items the current launch of `queue` has (set by prepare_launch).
uint launched(uint queue) {
    return Queues(constants().queues).q.launched[queue];
}

#endif
