#version 460
//
// Counting sort, pass 2 (one workgroup): each bucket's first position, the exclusive prefix
// sum of the counts; the counts are zeroed for the next sort.
#extension GL_GOOGLE_include_directive : require

#include "counting_sort.glsl"

layout(local_size_x = SORT_GROUP) in;

const uint BUCKETS_PER_THREAD = SORT_MAX_BUCKETS / SORT_GROUP;

shared uint thread_sums[SORT_GROUP];

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint buckets = push.bucket_count;
    SortWords counts = SortWords(push.bucket_counts);
    uint first = thread * BUCKETS_PER_THREAD;
    uint mine[BUCKETS_PER_THREAD];
    uint sum = 0;
    for (uint i = 0; i < BUCKETS_PER_THREAD; ++i) {
        uint b = first + i;
        mine[i] = b < buckets ? counts.v[b] : 0;
        sum += mine[i];
    }
    thread_sums[thread] = sum;
    barrier();
    // Hillis-Steele inclusive scan of the 256 thread sums.
    for (uint step = 1; step < SORT_GROUP; step *= 2) {
        uint add = thread >= step ? thread_sums[thread - step] : 0;
        barrier();
        thread_sums[thread] += add;
        barrier();
    }
    uint offset = thread_sums[thread] - sum;
    for (uint i = 0; i < BUCKETS_PER_THREAD; ++i) {
        uint b = first + i;
        if (b < buckets) {
            SortWords(push.bucket_offsets).v[b] = offset;
            counts.v[b] = 0;
        }
        offset += mine[i];
    }
}
