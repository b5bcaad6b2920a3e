// Squares32 (Widynski 2020): the counter-based generator of Metropolis light transport's
// primary sample space, where every number is recomputed from (key, counter) rather than
// stored. The twin of src/rng.rs's squares32; tests/rng.rs checks they give the same bits.
#ifndef WAVETRACE_SQUARES_GLSL
#define WAVETRACE_SQUARES_GLSL

#include "common.glsl"

uint64_t squares_swap_halves(uint64_t x) {
    return (x >> 32) | (x << 32);
}

uint squares32(uint64_t counter, uint64_t key) {
    uint64_t y = counter * key;
    uint64_t z = y + key;
    uint64_t x = y;
    x = squares_swap_halves(x * x + y);
    x = squares_swap_halves(x * x + z);
    x = squares_swap_halves(x * x + y);
    return uint((x * x + z) >> 32);
}

// Uniform in [0, 1): the top 24 bits, exact in a float and never 1.
float squares_uniform(uint64_t counter, uint64_t key) {
    return float(squares32(counter, key) >> 8u) * (1.0 / 16777216.0);
}

#endif
