#version 460
//
// Counting sort, pass 1: each workgroup counts its 1024 keys in a shared histogram, then adds
// the non-zero bins to the global counts (one atomic per bin and workgroup, not per item).
#extension GL_GOOGLE_include_directive : require

#include "counting_sort.glsl"

layout(local_size_x = SORT_GROUP) in;

shared uint histogram[SORT_MAX_BUCKETS];

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint group = gl_WorkGroupID.x;
    uint buckets = push.bucket_count;
    for (uint b = thread; b < buckets; b += SORT_GROUP) {
        histogram[b] = 0;
    }
    barrier();
    uint count = sort_item_count();
    for (uint i = 0; i < SORT_ITEMS_PER_THREAD; ++i) {
        uint item = sort_item(group, thread, i);
        if (item < count) {
            atomicAdd(histogram[sort_key(item)], 1);
        }
    }
    barrier();
    for (uint b = thread; b < buckets; b += SORT_GROUP) {
        if (histogram[b] > 0) {
            atomicAdd(SortWords(push.bucket_counts).v[b], histogram[b]);
        }
    }
}
