// Squares32 (Widynski 2020): the counter-based generator of Metropolis light transport's
// primary sample space, where every number is recomputed from (key, counter) rather than
// stored. The twin of src/rng.rs's squares32; tests/rng.rs checks they give the same bits.
#ifndef WAVETRACE_SQUARES_GLSL
#define WAVETRACE_SQUARES_GLSL

#include "common.glsl"
#include "rng.glsl"

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

// The Squares key of `chain` under `seed` (src/rng.rs's squares_key, which says why its digits
// follow the paper's rules): the lowest hexadecimal digit odd, the lowest eight non-zero and
// all different, each upper one non-zero and different from the one below it.
uint64_t squares_key(uint seed, uint chain) {
    // Bit v set: digit value v not yet used by the lowest eight.
    uint unused = 0xfffeu;
    uint64_t key = 0ul;
    uint previous = 0u;
    for (uint digit = 0u; digit < 16u; ++digit) {
        uint draw = wt_random_bits(seed, chain, 0u, SQUARES_KEY_BOUNCE, digit);
        uint value;
        if (digit == 0u) {
            value = 2u * (draw % 8u) + 1u;
        } else if (digit < 8u) {
            // The unused values in increasing order; take the draw's.
            uint skip = draw % uint(bitCount(unused));
            value = 1u;
            for (uint v = 1u; v < 16u; ++v) {
                if ((unused & (1u << v)) != 0u) {
                    if (skip == 0u) {
                        value = v;
                        break;
                    }
                    --skip;
                }
            }
        } else {
            // 1..15 without the digit below: 14 choices, shifted past it.
            uint v = 1u + draw % 14u;
            value = v >= previous ? v + 1u : v;
        }
        unused &= ~(1u << value);
        key |= uint64_t(value) << (4u * digit);
        previous = value;
    }
    return key;
}

#endif
