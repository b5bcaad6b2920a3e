#version 460
// variant: u32 SCAN_U32
// variant: f32 SCAN_F32
//
// Inclusive scan of one block of gl_WorkGroupSize.x * ITEMS_PER_THREAD elements per
// workgroup; the block's total goes to block_sums[block] for the next level.
//
// Each thread scans its own run of elements sequentially, the threads of a subgroup are
// combined with subgroupExclusiveAdd, and the subgroup totals are scanned by the first
// subgroup in chunks of gl_SubgroupSize, so any subgroup size works (8 on lavapipe, 32 on
// NVIDIA, 64 on AMD). For floats, this block-and-tree order also keeps rounding error
// growing with log(n) levels rather than with n.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scan_types.glsl"

layout(push_constant, scalar) uniform PushBlock {
    ScanPush push;
};

// One slot per subgroup; sized for the smallest subgroup a device may use (1 lane).
shared SCAN_T subgroup_totals[gl_WorkGroupSize.x];

void main() {
    uint block = flat_workgroup_index(push.groups_x);
    uint block_size = gl_WorkGroupSize.x * ITEMS_PER_THREAD;
    uint first = block * block_size + gl_LocalInvocationID.x * ITEMS_PER_THREAD;
    ScanValues input_values = ScanValues(push.values_in);
    ScanValues output_values = ScanValues(push.values_out);

    SCAN_T running = SCAN_T(0);
    for (uint i = 0; i < ITEMS_PER_THREAD; ++i) {
        uint index = first + i;
        if (index < push.count) {
            running += input_values.v[index];
        }
    }
    SCAN_T thread_total = running;
    SCAN_T before_thread = subgroupExclusiveAdd(thread_total);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        subgroup_totals[gl_SubgroupID] = before_thread + thread_total;
    }
    barrier();

    if (gl_SubgroupID == 0) {
        SCAN_T carry = SCAN_T(0);
        for (uint base = 0; base < gl_NumSubgroups; base += gl_SubgroupSize) {
            uint slot = base + gl_SubgroupInvocationID;
            SCAN_T total = slot < gl_NumSubgroups ? subgroup_totals[slot] : SCAN_T(0);
            SCAN_T scanned = subgroupInclusiveAdd(total) + carry;
            if (slot < gl_NumSubgroups) {
                subgroup_totals[slot] = scanned;
            }
            carry += subgroupAdd(total);
        }
    }
    barrier();

    SCAN_T offset = before_thread + (gl_SubgroupID > 0 ? subgroup_totals[gl_SubgroupID - 1] : SCAN_T(0));
    // A second read of the inputs costs less than keeping ITEMS_PER_THREAD values in
    // registers across the two barriers, and it lets ITEMS_PER_THREAD be a specialization.
    running = offset;
    for (uint i = 0; i < ITEMS_PER_THREAD; ++i) {
        uint index = first + i;
        if (index < push.count) {
            running += input_values.v[index];
            output_values.v[index] = running;
        }
    }

    if (push.block_sums != 0 && gl_LocalInvocationID.x == gl_WorkGroupSize.x - 1) {
        ScanValues(push.block_sums).v[block] = offset + thread_total;
    }
}
