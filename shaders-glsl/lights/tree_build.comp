#version 460
// variant: triangles LEAVES_FROM_TRIANGLES
// variant: weights LEAVES_FROM_WEIGHTS
//
// The whole light tree (layout in light_tree.glsl) in one dispatch, after the Traverse
// Research article "Fast CDF generation on the GPU for light picking".
//
// Every node is one lane of a subgroupInclusiveAdd over its sibling group, the arity being
// the subgroup size. A workgroup (BLOCK / ITEMS threads) scans BLOCK = ARITY^BLOCK_LEVELS
// nodes of a round's base level and the BLOCK_LEVELS - 1 levels above them in shared memory, then writes its block's
// sum one level further up. Blocks are grouped BLOCK to a parent; each parent has a survivor
// counter, and only the workgroup that arrives last at it carries on, taking the sums its
// siblings wrote (through the coherent tree buffer) as the base of the next round. The others
// exit. No workgroup ever waits for another, so this needs no forward-progress guarantee, and
// the tree is complete, whatever its depth, when the dispatch ends. Counters reset themselves.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scene.glsl"
#include "light_tree.glsl"

layout(constant_id = 0) const uint ARITY = 32;
layout(constant_id = 1) const uint BLOCK_LEVELS = 2;
layout(constant_id = 2) const uint BLOCK = 1024;
layout(constant_id = 3) const uint PARTIALS = 32;
layout(constant_id = 4) const uint ITEMS = 4;
layout(local_size_x_id = 5) in;

layout(push_constant, scalar) uniform PushBlock {
    LightTreePush push;
};

layout(buffer_reference, scalar) coherent buffer CoherentFloats { float v[]; };
layout(buffer_reference, scalar) coherent buffer Counters { uint v[]; };
layout(buffer_reference, scalar) readonly buffer LightMap { GpuLightEntry v[]; };
layout(buffer_reference, scalar) readonly buffer Weights { float v[]; };

// Group sums of the level being built, one per ARITY nodes of the level below.
shared float partial[PARTIALS];
shared bool carry_on;

// Emitted power of a light: luminance(radiance) x world-space area. Anything that is not a
// finite positive number (NaN corners, negative weights) is 0 and never chosen.
float leaf_weight(uint light) {
#ifdef LEAVES_FROM_WEIGHTS
    float weight = Weights(push.weights).v[light];
#else
    GpuLightEntry entry = LightMap(push.map).v[light];
    WorldTriangle emitter = light_triangle(push.positions, push.indices, push.instances, entry);
    float area = 0.5 * length(cross(emitter.p1 - emitter.p0, emitter.p2 - emitter.p0));
    float weight = luminance(Materials(push.materials).v[entry.material].emission) * area;
#endif
    return weight > 0.0 && !isinf(weight) ? weight : 0.0;
}

void main() {
    CoherentFloats tree = CoherentFloats(push.tree);
    uint thread = gl_LocalInvocationID.x;
    bool last_lane = gl_SubgroupInvocationID == ARITY - 1;
    uint top;
    uint top_offset;
    uint top_span;
    light_tree_top(push.count, ARITY, top, top_offset, top_span);

    uint block = flat_workgroup_index(gl_NumWorkGroups.x);
    uint level = 0;
    uint offset = 0;
    uint size = push.count;
    uint counter_base = 0;
    // Each thread holds ITEMS nodes of a level at once: all its loads are issued before the
    // first is needed, which is what keeps enough memory traffic in flight to approach the
    // bandwidth limit (one load per thread leaves an H100 at a quarter of it).
    float values[ITEMS];
    for (;;) {
        // The round's base level: leaves in the first round, later the sums that the blocks
        // of the previous round wrote. BLOCK is ITEMS workgroups wide, so every thread runs
        // every iteration and subgroups stay whole.
        for (uint k = 0; k < ITEMS; ++k) {
            uint node = block * BLOCK + k * gl_WorkGroupSize.x + thread;
            values[k] = 0.0;
            if (node < size) {
                values[k] = level == 0 ? leaf_weight(node) : tree.v[offset + node];
            }
        }
        for (uint k = 0; k < ITEMS; ++k) {
            uint item = k * gl_WorkGroupSize.x + thread;
            uint node = block * BLOCK + item;
            float prefix = subgroupInclusiveAdd(values[k]);
            if (node < size) {
                tree.v[offset + node] = prefix;
            }
            if (last_lane) {
                partial[item / ARITY] = prefix;
            }
        }
        barrier();

        uint span = BLOCK;
        for (uint step = 1; step < BLOCK_LEVELS && level < top; ++step) {
            offset += size;
            size = (size - 1) / ARITY + 1;
            level += 1;
            span /= ARITY;
            // span is a multiple of ARITY here, so `item < span` keeps subgroups whole. All
            // reads of the level before any write: the sums go back into the same array.
            for (uint k = 0; k < ITEMS; ++k) {
                uint item = k * gl_WorkGroupSize.x + thread;
                values[k] = item < span && block * span + item < size ? partial[item] : 0.0;
            }
            barrier();
            for (uint k = 0; k < ITEMS; ++k) {
                uint item = k * gl_WorkGroupSize.x + thread;
                if (item < span) {
                    uint node = block * span + item;
                    float prefix = subgroupInclusiveAdd(values[k]);
                    if (node < size) {
                        tree.v[offset + node] = prefix;
                    }
                    if (last_lane) {
                        partial[item / ARITY] = prefix;
                    }
                }
            }
            barrier();
        }
        if (level == top) {
            return;
        }

        // The block's sum is a node of the next level; the last of its siblings to arrive
        // builds their group and what lies above.
        offset += size;
        size = (size - 1) / ARITY + 1;
        level += 1;
        if (size == 1) {
            // The block's sum is the root: nothing to wait for.
            if (thread == 0) {
                tree.v[offset] = partial[0];
            }
            return;
        }
        uint parent = block / BLOCK;
        if (thread == 0) {
            tree.v[offset + block] = partial[0];
            memoryBarrierBuffer();
            uint siblings = min(BLOCK, size - parent * BLOCK);
            uint arrived = atomicAdd(Counters(push.counters).v[counter_base + parent], 1u);
            carry_on = arrived == siblings - 1;
            if (carry_on) {
                atomicExchange(Counters(push.counters).v[counter_base + parent], 0u);
            }
        }
        barrier();
        if (!carry_on) {
            return;
        }
        memoryBarrierBuffer();
        counter_base += (size - 1) / BLOCK + 1;
        block = parent;
    }
}
