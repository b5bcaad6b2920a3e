// Metropolis light transport's primary sample space (integrator/pmlt/, docs/PMLT.md): no
// sample is ever stored. A state is the ids that reproduce it: every number is
//
//     x[d] = frac(base[d] + sigma * N(offset[d])),
//
// base[d] and offset[d] Squares32 of (key, index, d), N the standard normal's inverse CDF. The
// chain's target is extended to pairs (base b, offset e) with density Y*(b + e) g(e), g the
// normal of deviation sigma, whose marginal in x = b + e is Y*(x) (b is uniform). A large
// step draws b and e afresh; a small step keeps b and draws e afresh. Both propose from a
// density the target divides into Y* alone, so both accept with min(1, Y*'/Y*), and a chain
// needs only (b's key and index, e's key and index): no history, no stored numbers.
// The CPU twin is src/integrator/pmlt/sample.rs (tests/pmlt.rs holds them together).
#ifndef WAVETRACE_MLT_GLSL
#define WAVETRACE_MLT_GLSL

#include "squares.glsl"

layout(buffer_reference, scalar) buffer MltChains { MltChain v[]; };
layout(buffer_reference, scalar) buffer MltRecords { MltRecord v[]; };
// The control, then the table of its `lengths` path lengths of a bootstrap round.
layout(buffer_reference, scalar) readonly buffer MltControlRef { MltControl v; uint lengths[]; };
layout(buffer_reference, scalar) readonly buffer MltScales { MltScale v[]; };

struct MltIds {
    uint64_t base_key;
    uint64_t base_index;
    uint64_t offset_key;
    uint64_t offset_index;
};

layout(buffer_reference, scalar) readonly buffer MltPixelImportance { float v[]; };

// The luminance of a path's contribution (host: pmlt::luminance).
float mlt_luminance(vec3 contribution) {
    return dot(contribution, vec3(0.2126, 0.7152, 0.0722));
}

// Y*, the scalar contribution a chain's target is proportional to: the luminance, times the
// importance of the pixel the path lands on where `importance` (one float for each of
// `pixels` pixels) is set (src/integrator/pmlt/importance.rs builds it and says why).
float mlt_target(vec3 contribution, uint pixel, uint64_t importance, uint pixels) {
    float y = mlt_luminance(contribution);
    if (importance != 0ul && pixel < pixels) {
        y *= MltPixelImportance(importance).v[pixel];
    }
    return y;
}

// Lanes of the acceptance workgroup one chain takes (host: pmlt::accept_lanes): the least
// power of two that holds its proposals, so that chains of few proposals share a workgroup.
uint mlt_accept_lanes(uint proposals) {
    uint lanes = 1;
    while (lanes < proposals && lanes < MLT_ACCEPT_GROUP) {
        lanes *= 2;
    }
    return lanes;
}

bool metropolis(PassConstants c) {
    return c.mlt_proposals != 0;
}

MltControl mlt_control(PassConstants c) {
    return MltControlRef(c.mlt_control).v;
}

// The standard normal's inverse CDF at u in [0, 1), through erfinv (Giles 2010's
// single-precision approximation), u moved to the middle of its 2^-24 cell so that it is
// never 0.
float mlt_standard_normal(float u) {
    float x = 2.0 * (u + 0.5 / 16777216.0) - 1.0;
    float w = -log((1.0 - x) * (1.0 + x));
    float p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return 1.41421356 * p * x;
}

// Number d of the primary sample the ids reproduce. Each index owns 2 x mlt_dimensions
// counters of its key: the base's numbers, then the offset's.
float mlt_number(PassConstants c, MltIds ids, uint dimension) {
    uint64_t stride = 2ul * uint64_t(c.mlt_dimensions);
    float base = squares_uniform(ids.base_index * stride + dimension, ids.base_key);
    float u = squares_uniform(ids.offset_index * stride + uint64_t(c.mlt_dimensions + dimension), ids.offset_key);
    float x = base + c.mlt_sigma * mlt_standard_normal(u);
    x -= floor(x);
    // frac of a tiny negative number rounds to 1.
    return min(x, 0.99999994);
}

// The dimension of a subpath's number (bounce, dimension) as the path tracer's kernels name
// them (light subpaths at LIGHT_SUBPATH_BOUNCE + segment): the camera subpath's bounces first,
// then the light subpath's, after the strategy and the image position.
uint mlt_dimension(PassConstants c, uint bounce, uint dimension) {
    uint per_bounce = MLT_DIMENSIONS_PER_BOUNCE;
    if (bounce >= LIGHT_SUBPATH_BOUNCE) {
        return MLT_LEADING_DIMENSIONS + per_bounce * (c.max_depth + 1) + per_bounce * (bounce - LIGHT_SUBPATH_BOUNCE)
               + dimension;
    }
    return MLT_LEADING_DIMENSIONS + per_bounce * bounce + dimension;
}

// A chain's own numbers of an iteration (index 0 of the iteration: whether it is a large
// step, which state comes next); its proposals take indices 1 to mlt_proposals.
uint64_t mlt_index(PassConstants c, uint iteration, uint within) {
    return uint64_t(iteration) * uint64_t(c.mlt_proposals + 1) + uint64_t(within);
}

float mlt_chain_number(PassConstants c, MltChain chain, uint iteration, uint which) {
    return squares_uniform(mlt_index(c, iteration, 0) * 2ul * uint64_t(c.mlt_dimensions) + which, chain.key);
}

const uint MLT_STEP_NUMBER = 0;
const uint MLT_DRAW_NUMBER = 1;

bool mlt_large_step(PassConstants c, MltChain chain, uint iteration) {
    return mlt_chain_number(c, chain, iteration, MLT_STEP_NUMBER) < c.mlt_large_step;
}

// The ids of proposal `proposal` (of every chain's, in chain order) at `iteration`; in the
// bootstrap, of uniform sample `proposal`.
MltIds mlt_proposal_ids(PassConstants c, uint proposal, uint iteration) {
    if (mlt_control(c).lengths != 0) {
        uint64_t index = uint64_t(proposal) + 1;
        uint64_t key = mlt_control(c).bootstrap_key;
        return MltIds(key, index, key, index);
    }
    MltChain chain = MltChains(c.mlt_chains).v[proposal / c.mlt_proposals];
    uint64_t index = mlt_index(c, iteration, proposal % c.mlt_proposals + 1);
    if (mlt_large_step(c, chain, iteration)) {
        return MltIds(chain.key, index, chain.key, index);
    }
    return MltIds(chain.base_key, chain.base_index, chain.key, index);
}

// The path length (segments) of a proposal: its chain's; in the bootstrap, each length of the
// round's table in turn (1 to max_depth in a round of every length).
uint mlt_path_length(PassConstants c, uint proposal) {
    MltControlRef control = MltControlRef(c.mlt_control);
    if (control.v.lengths != 0) {
        return control.lengths[proposal % control.v.lengths];
    }
    return MltChains(c.mlt_chains).v[proposal / c.mlt_proposals].path_length;
}

// Strategies (s, t) of a path of `length` segments: s = 0 to length, t = length + 1 - s, but
// (1, 1) (the light point seen by the camera, unused as in BDPT) at length 1.
uint mlt_strategy_count(uint length) {
    return length == 1 ? 1 : length + 1;
}

uvec2 mlt_strategy(uint length, float u) {
    uint count = mlt_strategy_count(length);
    uint s = min(uint(u * float(count)), count - 1);
    return uvec2(s, length + 1 - s);
}

#endif
