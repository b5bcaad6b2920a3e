#version 460
//
// Radix sort, for long tables only: one workgroup a digit value scans that value's column of
// the tile-major table, giving each tile the count of the value in the tiles before it, and
// the value's total. (A short table the scatter sums itself: one dispatch fewer a digit.)
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "common.glsl"
#include "dispatch.glsl"

// RADIX_GROUP / the subgroup size, which the pipeline fixes (full subgroups).
layout(constant_id = 0) const uint SUBGROUPS = 8;
layout(local_size_x = RADIX_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    RadixSortPush push;
};

layout(buffer_reference, scalar) buffer Words { uint v[]; };

shared uint subgroup_sums[SUBGROUPS];

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint value = gl_WorkGroupID.x;
    Words table = Words(push.histograms);
    Words prefixes = Words(push.prefixes);
    uint carried = 0;
    for (uint first = 0; first < push.tiles; first += RADIX_GROUP) {
        uint tile = first + thread;
        uint count = tile < push.tiles ? table.v[tile * RADIX_BUCKETS + value] : 0;
        uint inclusive = subgroupInclusiveAdd(count);
        if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
            subgroup_sums[gl_SubgroupID] = inclusive;
        }
        barrier();
        uint before = carried + inclusive - count;
        uint chunk = 0;
        for (uint s = 0; s < SUBGROUPS; ++s) {
            before += s < gl_SubgroupID ? subgroup_sums[s] : 0;
            chunk += subgroup_sums[s];
        }
        if (tile < push.tiles) {
            prefixes.v[tile * RADIX_BUCKETS + value] = before;
        }
        carried += chunk;
        barrier();
    }
    if (thread == 0) {
        Words(push.totals).v[value] = carried;
    }
}
