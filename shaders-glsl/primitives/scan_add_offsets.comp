#version 460
// variant: u32 SCAN_U32
// variant: f32 SCAN_F32
//
// Adds the scanned total of all earlier blocks to every element of a block (the down-sweep
// of the multi-level scan). `block_sums` holds the inclusive scan of the block totals.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scan_types.glsl"

layout(push_constant, scalar) uniform PushBlock {
    ScanPush push;
};

void main() {
    uint block = flat_workgroup_index(push.groups_x);
    if (block == 0) {
        return;
    }
    SCAN_T offset = ScanValues(push.block_sums).v[block - 1];
    ScanValues values = ScanValues(push.values_out);
    uint block_size = gl_WorkGroupSize.x * ITEMS_PER_THREAD;
    // Threads stride by the workgroup width so that neighbours touch neighbouring elements.
    for (uint i = 0; i < ITEMS_PER_THREAD; ++i) {
        uint index = block * block_size + i * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
        if (index < push.count) {
            values.v[index] += offset;
        }
    }
}
