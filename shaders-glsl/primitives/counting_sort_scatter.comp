#version 460
//
// Counting sort, pass 3: each workgroup ranks its items within their buckets in shared memory,
// reserves each bucket's run with one atomic on its global offset, and writes the values
// there; where `unsorted_copy` is set it also copies the values in their own order. The order
// inside a bucket is not stable (nothing downstream depends on it).
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
    uint keys[SORT_ITEMS_PER_THREAD];
    uint ranks[SORT_ITEMS_PER_THREAD];
    for (uint i = 0; i < SORT_ITEMS_PER_THREAD; ++i) {
        uint item = sort_item(group, thread, i);
        keys[i] = item < count ? sort_key(item) : 0;
        ranks[i] = item < count ? atomicAdd(histogram[keys[i]], 1) : 0;
    }
    barrier();
    for (uint b = thread; b < buckets; b += SORT_GROUP) {
        uint here = histogram[b];
        if (here > 0) {
            histogram[b] = atomicAdd(SortWords(push.bucket_offsets).v[b], here);
        }
    }
    barrier();
    for (uint i = 0; i < SORT_ITEMS_PER_THREAD; ++i) {
        uint item = sort_item(group, thread, i);
        if (item < count) {
            uint value = push.values == 0 ? item : SortWords(push.values).v[item];
            SortWords(push.sorted).v[histogram[keys[i]] + ranks[i]] = value;
            if (push.unsorted_copy != 0) {
                SortWords(push.unsorted_copy).v[item] = value;
            }
        }
    }
}
