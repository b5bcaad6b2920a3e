// Shared by both trace backends: record a path's closest hit and queue it for shading.
// A miss ends the path (no environment light yet). With SUBGROUP_APPEND (compute always; the
// raygen shader where the device has subgroup operations in ray-tracing stages) the queue
// takes one atomic per subgroup instead of one per hit: with a million hits a launch, the
// per-lane atomics on one counter are a large share of the extend kernel.
#ifndef WAVETRACE_ROUTE_HIT_GLSL
#define WAVETRACE_ROUTE_HIT_GLSL

#ifdef SUBGROUP_APPEND
#extension GL_KHR_shader_subgroup_ballot : require
#endif

void route_hit(PassConstants c, uint path, bool hit, float t, uint instance, uint primitive) {
#ifdef SUBGROUP_APPEND
    uvec4 ballot = subgroupBallot(hit);
    uint count = subgroupBallotBitCount(ballot);
    uint base = 0;
    if (count > 0 && subgroupElect()) {
        base = atomicAdd(Queues(c.queues).q.shade_count, count);
    }
    uint slot = subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
    if (!hit) {
        return;
    }
#else
    if (!hit) {
        return;
    }
    uint slot = atomicAdd(Queues(c.queues).q.shade_count, 1);
#endif
    Hits(c.hits).v[path] = HitRecord(t, instance, primitive, 0);
    Uints(c.shade_queue).v[slot] = path;
}

#endif
