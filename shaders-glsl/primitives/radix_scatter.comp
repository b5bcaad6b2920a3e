#version 460
//
// Radix sort, one dispatch a digit: each workgroup moves its tile's (key, value) pairs to
// their places, stably. A tile's first place for each digit value is the count of smaller
// values over all tiles plus the count of its value in the tiles before it: summed here from
// the per-tile table when it is short (no scan pass between count and scatter), read from
// `radix_offsets` when it is long. Each subgroup ranks its own run of the tile, in rounds of
// a subgroup's items in index order: an item's rank among the run's earlier items of its
// digit is found without ordering atomics (a subgroup matches equal digits with one ballot
// per digit bit, and the rounds before add theirs from the subgroup's own counts), so a
// subgroup needs no other until every run is ranked. Then one pass over the subgroups' counts
// gives each run its first place within the tile, and the items are written: three or four
// workgroup barriers a scatter where ranking the tile round by round across the workgroup
// took three a round (on an H100, 6 us less a sort of 2 x 10^4 keys; the same at 10^5 and
// 10^6, where the rounds of each subgroup set a scatter's time). Stability is what lets an
// LSD sort take the digits one after another. Each item placed is counted at once in the
// next digit's table, in the row of the tile it lands in, so that no count pass separates two
// digits either. The second digit's scatter clears the first digit's table, spent by then,
// for a caller that counts the next sort's first digit itself.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "common.glsl"
#include "dispatch.glsl"

// Subgroups of a workgroup, and its threads (SUBGROUPS x the subgroup size, which the
// pipeline fixes: full subgroups). A workgroup ranks a tile whatever its width, so the wider
// it is, the fewer rounds each subgroup ranks: a round is a chain of ballots and shared
// atomics (about 0.6 us on an H100), and a scatter of a few tiles waits on its rounds.
layout(constant_id = 0) const uint SUBGROUPS = 8;
layout(constant_id = 1) const uint GROUP = 256;
layout(local_size_x_id = 1) in;
// Items each thread ranks, and the threads that sum the count table for each digit value
// (radix_sort.rs checks that both divide evenly).
const uint ITEMS = RADIX_TILE / GROUP;
const uint SUMMERS = GROUP / RADIX_BUCKETS;

layout(push_constant, scalar) uniform PushBlock {
    RadixSortPush push;
};

layout(buffer_reference, scalar) buffer Words { uint v[]; };

// The tile's first place for each digit value.
shared uint tile_place[RADIX_BUCKETS];
// Items of each digit in each subgroup's run, two digits a word (a count is at most a run's
// ITEMS x subgroup size items, under 2^16), which keeps 32 subgroups within 16 KiB of
// shared memory. Counted while ranking, then turned into each run's first place among the
// tile's items of the digit.
shared uint subgroup_counts[SUBGROUPS][RADIX_BUCKETS / 2];
shared uint subgroup_sums[SUBGROUPS];
// Each summer's share of a digit value's counts in the tiles before this one, and in all.
shared uint summed_before[GROUP];
shared uint summed_total[GROUP];

uint digit_half(uint word, uint digit) {
    return (word >> (16 * (digit % 2))) & 0xffffu;
}

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint tile = flat_workgroup_index(gl_NumWorkGroups.x);
    if (tile >= push.tiles) {
        return;
    }
    uint subgroup = gl_SubgroupID;
    uint run_first = tile * RADIX_TILE + subgroup * ITEMS * gl_SubgroupSize;
    // The run's pairs are fetched first, all at once, so that their latency overlaps the
    // offsets' and the rounds below wait on no global load.
    Words keys_in = Words(push.keys_in);
    Words values_in = Words(push.values_in);
    uint run_keys[ITEMS];
    uint run_values[ITEMS];
    for (uint round = 0; round < ITEMS; ++round) {
        uint item = run_first + round * gl_SubgroupSize + gl_SubgroupInvocationID;
        run_keys[round] = item < push.count ? keys_in.v[item] : 0;
        run_values[round] = item < push.count ? values_in.v[item] : 0;
    }
    for (uint b = thread; b < SUBGROUPS * RADIX_BUCKETS / 2; b += GROUP) {
        subgroup_counts[b / (RADIX_BUCKETS / 2)][b % (RADIX_BUCKETS / 2)] = 0;
    }
    // The first RADIX_BUCKETS threads end with a digit value each; SUMMERS threads share the
    // sum of each value's column of the table.
    uint value = thread % RADIX_BUCKETS;
    uint summer = thread / RADIX_BUCKETS;
    bool owns_value = summer == 0;
    uint in_tiles_before = 0;
    uint total = 0;
    if (push.prefixes != 0) {
        if (owns_value) {
            in_tiles_before = Words(push.prefixes).v[tile * RADIX_BUCKETS + value];
            total = Words(push.totals).v[value];
        }
    } else {
        // Eight rows a step, loaded before any is added: the loads are in flight together.
        // (Sixteen or all 64 a step were slower on the H100: 9-12 us a sort at 10^5 keys.)
        // The summers take every SUMMERS-th step.
        Words table = Words(push.histograms);
        for (uint first = 8 * summer; first < push.tiles; first += 8 * SUMMERS) {
            uint counts[8];
            for (uint i = 0; i < 8; ++i) {
                uint t = first + i;
                counts[i] = t < push.tiles ? table.v[t * RADIX_BUCKETS + value] : 0;
            }
            for (uint i = 0; i < 8; ++i) {
                in_tiles_before += first + i < tile ? counts[i] : 0;
                total += counts[i];
            }
        }
        if (SUMMERS > 1) {
            summed_before[thread] = in_tiles_before;
            summed_total[thread] = total;
            barrier();
            if (owns_value) {
                for (uint other = 1; other < SUMMERS; ++other) {
                    in_tiles_before += summed_before[other * RADIX_BUCKETS + value];
                    total += summed_total[other * RADIX_BUCKETS + value];
                }
            } else {
                in_tiles_before = 0;
                total = 0;
            }
        }
    }
    // Threads past the first RADIX_BUCKETS add nothing to the scan over values.
    uint inclusive = subgroupInclusiveAdd(total);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        subgroup_sums[subgroup] = inclusive;
    }
    barrier();
    uint smaller_values = inclusive - total;
    for (uint s = 0; s < subgroup; ++s) {
        smaller_values += subgroup_sums[s];
    }
    if (owns_value) {
        tile_place[value] = smaller_values + in_tiles_before;
        if (push.spent_histograms != 0) {
            Words(push.spent_histograms).v[tile * RADIX_BUCKETS + value] = 0;
        }
    }

    // Ranks within the run. Every lane reads its digit's count before the last lane of the
    // digit adds the round's to it (two digits share a word, hence the atomic).
    uint run_ranks[ITEMS];
    for (uint round = 0; round < ITEMS; ++round) {
        uint item = run_first + round * gl_SubgroupSize + gl_SubgroupInvocationID;
        bool valid = item < push.count;
        uint digit = (run_keys[round] >> push.shift) & (RADIX_BUCKETS - 1);
        uvec4 same = subgroupBallot(valid);
        for (uint bit = 0; bit < RADIX_BITS; ++bit) {
            bool set = ((digit >> bit) & 1u) != 0u;
            uvec4 votes = subgroupBallot(set);
            same &= set ? votes : ~votes;
        }
        uvec4 earlier_mask = same & gl_SubgroupLtMask;
        uint earlier = bitCount(earlier_mask.x) + bitCount(earlier_mask.y) + bitCount(earlier_mask.z)
                       + bitCount(earlier_mask.w);
        uint matching = bitCount(same.x) + bitCount(same.y) + bitCount(same.z) + bitCount(same.w);
        run_ranks[round] = digit_half(subgroup_counts[subgroup][digit / 2], digit) + earlier;
        subgroupBarrier();
        if (valid && earlier == matching - 1) {
            atomicAdd(subgroup_counts[subgroup][digit / 2], matching << (16 * (digit % 2)));
        }
        subgroupBarrier();
    }
    barrier();
    // Each run's first place among the tile's items of a digit: the counts of the runs before
    // it, summed two digits a word (no half can carry into the other: a tile has RADIX_TILE
    // items, fewer than 2^16).
    for (uint w = thread; w < RADIX_BUCKETS / 2; w += GROUP) {
        uint running = 0;
        for (uint s = 0; s < SUBGROUPS; ++s) {
            uint count = subgroup_counts[s][w];
            subgroup_counts[s][w] = running;
            running += count;
        }
    }
    barrier();
    for (uint round = 0; round < ITEMS; ++round) {
        uint item = run_first + round * gl_SubgroupSize + gl_SubgroupInvocationID;
        if (item < push.count) {
            uint key = run_keys[round];
            uint digit = (key >> push.shift) & (RADIX_BUCKETS - 1);
            uint run_place = digit_half(subgroup_counts[subgroup][digit / 2], digit);
            uint place = tile_place[digit] + run_place + run_ranks[round];
            Words(push.keys_out).v[place] = key;
            Words(push.values_out).v[place] = run_values[round];
            if (push.next_histograms != 0) {
                uint next_digit = (key >> (push.shift + RADIX_BITS)) & (RADIX_BUCKETS - 1);
                atomicAdd(Words(push.next_histograms).v[(place / RADIX_TILE) * RADIX_BUCKETS + next_digit], 1u);
            }
        }
    }
}
