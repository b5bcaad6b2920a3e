// The numbers a path draws: Owen-scrambled Sobol points (Burley 2020, "Practical Hash-based
// Owen Scrambling", JCGT 9(4)), as Cycles (Sobol-Burley) and pbrt-v4 (ZSobol) offer, or
// independent numbers (rng.glsl). The CPU twin is src/sampler.rs; the two give identical bits
// (tests/sampler.rs).
//
// A bounce's dimensions fall into sets that a path uses together: a BSDF sample's direction, a
// light's point with the choice of the light, the BSDF's lobe with roulette, the pixel's jitter.
// A set is one point of the Sobol sequence in 2 or 3 dimensions, so that each pixel's samples
// spread evenly over it; sets are decorrelated from each other by shuffling the sequence per
// (pixel, bounce, set) ("padding"). Every number is still a pure function of (seed, pixel,
// sample, bounce, dimension). Sets of 2 and 3, not Burley's sets of four: the first two Sobol
// dimensions need no loop over the index's bits, and only a light's choice needs a third, which
// must be stratified with the light's point or a light of two triangles loses most of the gain
// (docs/SAMPLING.md).
#ifndef WAVETRACE_SAMPLER_GLSL
#define WAVETRACE_SAMPLER_GLSL

#include "interface.glsl"
#include "rng.glsl"

// Coordinates 1 and 2 of Sobol point `index`, each as 32 fraction bits. The first is the van der
// Corput sequence (the bit-reversed index). The second's generator matrix is Pascal's triangle
// mod 2: fraction bit j is the parity of the index's bits k with j a bitwise subset of k, a
// sum over supersets that five shifts compute.
uvec2 sobol_pair(uint index) {
    uint parity = index;
    parity ^= (parity >> 1u) & 0x55555555u;
    parity ^= (parity >> 2u) & 0x33333333u;
    parity ^= (parity >> 4u) & 0x0f0f0f0fu;
    parity ^= (parity >> 8u) & 0x00ff00ffu;
    parity ^= (parity >> 16u) & 0x0000ffffu;
    return uvec2(bitfieldReverse(index), bitfieldReverse(parity));
}

// Coordinate 3 of Sobol point `index` (Sobol dimension 3, Joe and Kuo's polynomial
// x^2 + x + 1): the XOR of its generator matrix's columns of the index's bits, each column from
// the two before by Bratley and Fox's recurrence (cheaper here than a table, which a varying
// bit would index in local memory on NVIDIA's compiler).
uint sobol_third(uint index) {
    uint bits = 0u;
    uvec2 columns = uvec2(0x80000000u, 0xc0000000u);
    while (index != 0u) {
        if ((index & 1u) != 0u) {
            bits ^= columns.x;
        }
        index >>= 1u;
        columns = uvec2(columns.y, columns.x ^ (columns.x >> 2u) ^ columns.y);
    }
    return bits;
}

// A random permutation of the 32-bit fractions in which each bit is flipped by a function of the
// bits above it: Owen's nested uniform scrambling in base 2. The hash that does it on the
// reversed bits, where each output bit depends only on the input bits below it, is Vegdahl's
// improvement of Laine and Karras's.
uint owen_scramble(uint fraction, uint seed) {
    uint x = bitfieldReverse(fraction);
    x ^= x * 0x3d20adeau;
    x += seed;
    x *= (seed >> 16u) | 1u;
    x ^= x * 0x05526c56u;
    x ^= x * 0x53a22864u;
    return bitfieldReverse(x);
}

// Which set a dimension of a bounce belongs to, and its coordinate there (x: set, y: 0-2). The
// conventions are the callers': a camera-side bounce draws 0, 1 (a BSDF's direction, or the
// pixel jitter at bounce 0), 3, 4 (a light's point) with 2 (the light), and 5 (the BSDF's lobe)
// with RR_DIMENSION (roulette); a light subpath's emission 3, 4 (its direction) and 1, 2 (its
// point) with 0 (the light); its scattering 0, 1 (the direction) and 2 (the lobe) with 3
// (roulette). Other dimensions get a set of their own.
uvec2 sample_set(uint bounce, uint dimension) {
    if (bounce == LIGHT_SUBPATH_BOUNCE) {
        if (dimension <= 4u) {
            return dimension == 0u ? uvec2(1u, 2u) : uvec2(dimension <= 2u ? 1u : 0u, (dimension - 1u) & 1u);
        }
    } else if (bounce > LIGHT_SUBPATH_BOUNCE) {
        if (dimension <= 3u) {
            return uvec2(dimension >> 1u, dimension & 1u);
        }
    } else {
        if (dimension <= 1u) {
            return uvec2(0u, dimension);
        }
        if (dimension <= 4u) {
            return uvec2(1u, dimension == 2u ? 2u : dimension - 3u);
        }
        if (dimension == 5u || dimension == RR_DIMENSION) {
            return uvec2(2u, dimension == 5u ? 0u : 1u);
        }
    }
    return uvec2(3u + dimension, 0u);
}

// The seed of a set's shuffle and scrambling.
uint sobol_set_seed(uint seed, uint pixel, uint bounce, uint set) {
    return wt_random_bits(seed, pixel, SOBOL_SET_SAMPLE, bounce, set);
}

// Where sample `sample_index` of a pixel lies in its set's sequence. The shuffle (Owen scrambling
// of the index) maps the first 2^m indices onto an aligned block of 2^m Sobol points; XORing the
// first index's image in brings that block to the first one, whose points differ from the
// block's by one XOR per coordinate, which the coordinate's random scrambling absorbs. So the
// points are distributed as Burley's, and an index has as many bits as the sample's.
uint sobol_shuffled_index(uint sample_index, uint set_seed) {
    return owen_scramble(sample_index, set_seed) ^ owen_scramble(0u, set_seed);
}

// Coordinates 1 and 2 of a set's point `index`, each scrambled on its own.
uvec2 sobol_scrambled_pair(uint index, uint set_seed) {
    uvec2 point = sobol_pair(index);
    return uvec2(owen_scramble(point.x, wt_hash(set_seed)), owen_scramble(point.y, wt_hash(set_seed ^ 1u)));
}

// The Sobol sampler's first two coordinates of a set.
uvec2 sobol_pair_bits(uint seed, uint pixel, uint sample_index, uint bounce, uint set) {
    uint set_seed = sobol_set_seed(seed, pixel, bounce, set);
    return sobol_scrambled_pair(sobol_shuffled_index(sample_index, set_seed), set_seed);
}

// All three coordinates of a set.
uvec3 sobol_triple_bits(uint seed, uint pixel, uint sample_index, uint bounce, uint set) {
    uint set_seed = sobol_set_seed(seed, pixel, bounce, set);
    uint index = sobol_shuffled_index(sample_index, set_seed);
    return uvec3(sobol_scrambled_pair(index, set_seed), owen_scramble(sobol_third(index), wt_hash(set_seed ^ 2u)));
}

// 24 bits as floats in [0, 1), exact, as rng.glsl's wt_random.
vec2 sobol_pair_sample(uint seed, uint pixel, uint sample_index, uint bounce, uint set) {
    return vec2(sobol_pair_bits(seed, pixel, sample_index, bounce, set) >> 8u) * (1.0 / 16777216.0);
}

vec3 sobol_triple_sample(uint seed, uint pixel, uint sample_index, uint bounce, uint set) {
    return vec3(sobol_triple_bits(seed, pixel, sample_index, bounce, set) >> 8u) * (1.0 / 16777216.0);
}

// One number of a bounce, by its dimension (sample_set).
uint sobol_sample_bits(uint seed, uint pixel, uint sample_index, uint bounce, uint dimension) {
    uvec2 set = sample_set(bounce, dimension);
    if (set.y == 2u) {
        return sobol_triple_bits(seed, pixel, sample_index, bounce, set.x).z;
    }
    uvec2 bits = sobol_pair_bits(seed, pixel, sample_index, bounce, set.x);
    return set.y == 0u ? bits.x : bits.y;
}

float sobol_sample(uint seed, uint pixel, uint sample_index, uint bounce, uint dimension) {
    return float(sobol_sample_bits(seed, pixel, sample_index, bounce, dimension) >> 8u) * (1.0 / 16777216.0);
}

#endif
