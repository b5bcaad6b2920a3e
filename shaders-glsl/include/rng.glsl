// Counter-based random numbers: every number is a pure function of
// (seed, path or pixel, sample, bounce, dimension), so one seed gives one image on either
// trace backend and samples can be split across devices. The CPU twin is src/rng.rs; the
// two must give identical bits (tests/rng.rs).
//
// The mixer is the PCG output permutation used as a hash ("pcg_hash", Jarzynski and Olano,
// "Hash Functions for GPU Rendering", JCGT 2020), chained over the five counters.
#ifndef WAVETRACE_RNG_GLSL
#define WAVETRACE_RNG_GLSL

uint wt_hash(uint value) {
    uint state = value * 747796405u + 2891336453u;
    uint word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
}

uint wt_random_bits(uint seed, uint path, uint sample_index, uint bounce, uint dimension) {
    uint h = wt_hash(seed);
    h = wt_hash(h ^ path);
    h = wt_hash(h ^ sample_index);
    h = wt_hash(h ^ bounce);
    return wt_hash(h ^ dimension);
}

// Uniform in [0, 1): the top 24 bits, so the float is exact and never rounds up to 1.
float wt_random(uint seed, uint path, uint sample_index, uint bounce, uint dimension) {
    return float(wt_random_bits(seed, path, sample_index, bounce, dimension) >> 8u) * (1.0 / 16777216.0);
}

#endif
