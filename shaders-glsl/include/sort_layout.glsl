// The counting sort's shape, shared by its kernels and by prepare_launch, which sizes its
// launches (src/primitives/counting_sort.rs has the same numbers and a test that reads these).
#ifndef WAVETRACE_SORT_LAYOUT_GLSL
#define WAVETRACE_SORT_LAYOUT_GLSL

const uint SORT_GROUP = 256;
const uint SORT_ITEMS_PER_THREAD = 4;
const uint SORT_ITEMS_PER_GROUP = SORT_GROUP * SORT_ITEMS_PER_THREAD;
// Buckets fit one workgroup's shared histogram.
const uint SORT_MAX_BUCKETS = 1024;

#endif
