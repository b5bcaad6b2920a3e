#version 460
//
// Radix sort, before the first digit: each workgroup counts the first digit of its tile of
// RADIX_TILE keys in a shared histogram and writes it to row `tile` of the tile-major table.
// The later digits are counted by the scatter of the digit before them, into tables this
// pass clears.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"

layout(local_size_x = RADIX_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    RadixSortPush push;
};

layout(buffer_reference, scalar) buffer Words { uint v[]; };

shared uint histogram[RADIX_BUCKETS];

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint tile = flat_workgroup_index(gl_NumWorkGroups.x);
    if (tile >= push.tiles) {
        return;
    }
    Words tables = Words(push.histograms);
    uint table_words = push.tiles * RADIX_BUCKETS;
    for (uint w = tile * RADIX_GROUP + thread; w < push.clear_words; w += push.tiles * RADIX_GROUP) {
        tables.v[table_words + w] = 0;
    }
    for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
        histogram[b] = 0;
    }
    barrier();
    Words keys = Words(push.keys_in);
    for (uint i = 0; i < RADIX_ITEMS_PER_THREAD; ++i) {
        uint item = tile * RADIX_TILE + i * RADIX_GROUP + thread;
        if (item < push.count) {
            atomicAdd(histogram[(keys.v[item] >> push.shift) & (RADIX_BUCKETS - 1)], 1);
        }
    }
    barrier();
    for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
        tables.v[tile * RADIX_BUCKETS + b] = histogram[b];
    }
}
