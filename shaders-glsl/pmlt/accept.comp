#version 460
// variant: float_atomic SPLAT_FLOAT_ATOMIC
// variant: float_cas SPLAT_FLOAT_CAS
//
// After the chains' proposals' paths are traced, a run of lanes per chain (a power of two that
// holds its proposals, the whole workgroup past MLT_ACCEPT_GROUP of them): the generalized
// Metropolis-Hastings step over the current state i and the chain's N proposals j,
//
//     A(i, j) = min(1, Y*(x_j) / Y*(x_i)) / N,   A(i, i) = 1 - sum_j A(i, j),
//
// a mixture of N independence-sampler Metropolis kernels (mlt.glsl says why each is one).
// Every point is splatted with its probability (Rao-Blackwellised: the chain's one Monte
// Carlo sample of the iteration), scaled by its path length's b_k / chains; then the next
// state is drawn from A by a prefix sum over the proposals and a binary search.
//
// A large step's proposals are also uniform samples of primary sample space, whatever the
// chain does with them. Kelemen et al. 2002 weigh the two samplers by the balance heuristic:
// a point splats F (A + L) / (Y*/b_k + N p_large), L = 1 for a large step's proposal, where
// Metropolis alone splats F A / (Y*/b_k). Both are unbiased; the balance takes the dim
// paths, which the chains rarely visit, mostly from the uniform samples.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"
#include "mlt.glsl"
#include "splat_film.glsl"

layout(local_size_x = MLT_ACCEPT_GROUP) in;

// Inclusive prefix sums of the proposals' A(i, j), each chain's at its first lane's index (a
// chain of more proposals than lanes has the workgroup to itself); then each lane's run's total.
shared float cumulative[MLT_MAX_PROPOSALS];
shared float run_offsets[MLT_ACCEPT_GROUP];

float acceptance(float current, float proposed) {
    if (!(proposed > 0.0)) {
        return 0.0;
    }
    // A chain is started in proportion to Y*, so its state has Y* > 0; should it not, any
    // proposal that carries light is taken.
    return current > 0.0 ? min(1.0, proposed / current) : 1.0;
}

// `weight` in units of the chains' samples; `scale.uniform_luminance` is 0 where the large
// steps do not count as samples of their own.
void splat(PassConstants c, MltScale scale, uint pixel, vec3 contribution, float luminance_value, float weight) {
    if (weight > 0.0 && luminance_value > 0.0) {
        float density = luminance_value + scale.uniform_luminance;
        splat_add(c.splat_film, pixel, contribution * (weight * scale.image / density));
    }
}

void main() {
    PassConstants c = constants();
    uint proposals = c.mlt_proposals;
    uint lanes = mlt_accept_lanes(proposals);
    uint lane = gl_LocalInvocationID.x % lanes;
    uint chain_lane = gl_LocalInvocationID.x - lane;
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint chain_index = group * (MLT_ACCEPT_GROUP / lanes) + gl_LocalInvocationID.x / lanes;
    // Lanes of a chain past the last stay for the barriers, with nothing to do.
    bool has_chain = chain_index < c.mlt_chain_count;
    MltChains chains = MltChains(c.mlt_chains);
    MltRecords records = MltRecords(c.mlt_records);
    MltChain chain;
    uint first = chain_index * proposals;
    uint iteration = 0;
    MltScale scale = MltScale(0.0, 0.0);
    float share = 1.0 / float(proposals);
    uint64_t importance = mlt_control(c).pixel_importance;
    uint pixels = c.width * c.height;
    // A large step's proposal is a uniform sample too (a whole one) where the balance weighs it.
    float uniform_sample = 0.0;

    // Each lane takes a consecutive run of proposals, so that the runs' sums, offset by the
    // runs before them, make the prefix sum.
    uint run = (proposals + lanes - 1) / lanes;
    uint begin = min(lane * run, proposals);
    uint end = min(begin + run, proposals);
    float sum = 0.0;
    if (has_chain) {
        chain = chains.v[chain_index];
        iteration = chain.iterations;
        scale = MltScales(c.mlt_scales).v[chain.path_length - 1];
        if (scale.uniform_luminance > 0.0 && mlt_large_step(c, chain, iteration)) {
            uniform_sample = 1.0;
        }
        for (uint j = begin; j < end; ++j) {
            MltRecord record = records.v[first + j];
            float y = mlt_target(record.contribution, record.pixel, importance, pixels);
            float a = acceptance(chain.luminance, y) * share;
            splat(c, scale, record.pixel, record.contribution, y, a + uniform_sample);
            sum += a;
            cumulative[chain_lane + j] = sum;
        }
    }
    run_offsets[gl_LocalInvocationID.x] = sum;
    barrier();
    if (lane == 0) {
        float total = 0.0;
        for (uint i = chain_lane; i < chain_lane + lanes; ++i) {
            float run_sum = run_offsets[i];
            run_offsets[i] = total;
            total += run_sum;
        }
    }
    barrier();
    for (uint j = begin; j < end; ++j) {
        cumulative[chain_lane + j] += run_offsets[gl_LocalInvocationID.x];
    }
    barrier();
    if (!has_chain || lane != 0) {
        return;
    }
    float moving = cumulative[chain_lane + proposals - 1];
    splat(c, scale, chain.pixel, chain.contribution, chain.luminance, max(1.0 - moving, 0.0));

    // The first proposal whose prefix sum passes u; past them all (u >= moving), the chain stays.
    float u = mlt_chain_number(c, chain, iteration, MLT_DRAW_NUMBER);
    if (u < moving) {
        uint low = 0;
        uint high = proposals - 1;
        while (low < high) {
            uint middle = (low + high) / 2;
            if (cumulative[chain_lane + middle] > u) {
                high = middle;
            } else {
                low = middle + 1;
            }
        }
        MltRecord record = records.v[first + low];
        uint64_t index = mlt_index(c, iteration, low + 1);
        if (mlt_large_step(c, chain, iteration)) {
            chain.base_key = chain.key;
            chain.base_index = index;
        }
        chain.offset_key = chain.key;
        chain.offset_index = index;
        chain.contribution = record.contribution;
        chain.luminance = mlt_target(record.contribution, record.pixel, importance, pixels);
        chain.pixel = record.pixel;
        chain.moves += 1;
    }
    chain.iterations = iteration + 1;
    chain.acceptance += moving;
    chains.v[chain_index] = chain;
}
