// What the trace floor's kernels share (trace/floor*): the push constants (the software
// traversal's with SOFTWARE_FLOOR), the recorded rays
// and the count of those that hit: one atomic per subgroup with SUBGROUP_COUNT (where the
// stage has subgroup ballot), else one per lane that hit.
#ifndef WAVETRACE_TRACE_FLOOR_GLSL
#define WAVETRACE_TRACE_FLOOR_GLSL

#include "common.glsl"

layout(push_constant, scalar) uniform PushBlock {
#ifdef SOFTWARE_FLOOR
    SoftwareFloorPush push;
#else
    TraceFloorPush push;
#endif
};

layout(buffer_reference, scalar) readonly buffer FloorRays { ProbeRay v[]; };
layout(buffer_reference, scalar) buffer FloorHits { uint v; };

#ifdef SUBGROUP_COUNT
#extension GL_KHR_shader_subgroup_ballot : require

void count_hits(bool hit) {
    uint hits = subgroupBallotBitCount(subgroupBallot(hit));
    if (subgroupElect() && hits > 0) {
        atomicAdd(FloorHits(push.hits).v, hits);
    }
}
#else
void count_hits(bool hit) {
    if (hit) {
        atomicAdd(FloorHits(push.hits).v, 1u);
    }
}
#endif

#endif
