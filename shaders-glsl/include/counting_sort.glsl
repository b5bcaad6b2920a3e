// What the counting sort's kernels share: their push constants and buffer views.
#ifndef WAVETRACE_COUNTING_SORT_GLSL
#define WAVETRACE_COUNTING_SORT_GLSL

#include "common.glsl"
#include "sort_layout.glsl"

layout(buffer_reference, scalar) buffer SortWords { uint v[]; };
layout(buffer_reference, scalar) readonly buffer SortCount { uint value; };

layout(push_constant, scalar) uniform PushBlock {
    SortPush push;
};

uint sort_item_count() {
    return SortCount(push.count).value;
}

// Keys past the bucket range (never written so by wavetrace) go to the last bucket rather
// than outside the histogram.
uint sort_key(uint item) {
    return min(SortWords(push.keys).v[item], push.bucket_count - 1);
}

// Item i of thread t in workgroup g: consecutive threads read consecutive items.
uint sort_item(uint group, uint thread, uint i) {
    return group * SORT_ITEMS_PER_GROUP + i * SORT_GROUP + thread;
}

#endif
