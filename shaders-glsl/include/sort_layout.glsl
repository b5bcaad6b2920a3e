// The counting sort's shape, shared by its kernels and by prepare_launch, which sizes its
// launches (src/primitives/counting_sort.rs has the same numbers and a test that reads these).
#ifndef WAVETRACE_SORT_LAYOUT_GLSL
#define WAVETRACE_SORT_LAYOUT_GLSL

// SORT_GROUP, SORT_ITEMS_PER_THREAD, SORT_ITEMS_PER_GROUP and SORT_MAX_BUCKETS come from
// interface.glsl.
#include "common.glsl"

#endif
