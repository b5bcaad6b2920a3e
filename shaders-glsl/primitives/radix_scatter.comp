#version 460
//
// Radix sort, one dispatch a digit: each workgroup moves its tile's (key, value) pairs to
// their places, stably. A tile's first place for each digit value is the count of smaller
// values over all tiles plus the count of its value in the tiles before it: summed here from
// the per-tile table when it is short (no scan pass between count and scatter), read from
// `radix_offsets` when it is long. The tile is then taken in rounds of RADIX_GROUP items in
// index order; in a round an item's rank among the earlier items of its digit is found
// without ordering atomics: a subgroup matches equal digits with one ballot per digit bit,
// the counts of the subgroups before it come from shared memory, and the rounds before add
// theirs. Stability is what lets an LSD sort take the digits one after another. Each item
// placed is counted at once in the next digit's table, in the row of the tile it lands in,
// so that no count pass separates two digits either.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_arithmetic : require

#include "common.glsl"
#include "dispatch.glsl"

// RADIX_GROUP / the subgroup size, which the pipeline fixes (full subgroups).
layout(constant_id = 0) const uint SUBGROUPS = 8;
layout(local_size_x = RADIX_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    RadixSortPush push;
};

layout(buffer_reference, scalar) buffer Words { uint v[]; };

// Where each digit's next item goes: its first place for this tile, advanced round by round.
shared uint next_place[RADIX_BUCKETS];
// Items of each digit in each subgroup of the round, two digits a word (a count is at most
// the subgroup size), which keeps 32 subgroups of 8 lanes within 32 KiB of shared memory.
shared uint subgroup_counts[SUBGROUPS][RADIX_BUCKETS / 2];
shared uint round_totals[RADIX_BUCKETS];
shared uint subgroup_sums[SUBGROUPS];

uint subgroup_count(uint subgroup, uint digit) {
    return (subgroup_counts[subgroup][digit / 2] >> (16 * (digit % 2))) & 0xffffu;
}

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint tile = flat_workgroup_index(gl_NumWorkGroups.x);
    if (tile >= push.tiles) {
        return;
    }
    // The tile's pairs are fetched first, all at once, so that their latency overlaps the
    // offsets' and the rounds below wait on no global load.
    Words keys_in = Words(push.keys_in);
    Words values_in = Words(push.values_in);
    uint tile_keys[RADIX_ITEMS_PER_THREAD];
    uint tile_values[RADIX_ITEMS_PER_THREAD];
    for (uint round = 0; round < RADIX_ITEMS_PER_THREAD; ++round) {
        uint item = tile * RADIX_TILE + round * RADIX_GROUP + thread;
        tile_keys[round] = item < push.count ? keys_in.v[item] : 0;
        tile_values[round] = item < push.count ? values_in.v[item] : 0;
    }
    // One thread a digit value (RADIX_GROUP == RADIX_BUCKETS, which radix_sort.rs asserts).
    uint value = thread;
    uint in_tiles_before = 0;
    uint total = 0;
    if (push.prefixes != 0) {
        in_tiles_before = Words(push.prefixes).v[tile * RADIX_BUCKETS + value];
        total = Words(push.totals).v[value];
    } else {
        // Eight rows a step, loaded before any is added: the loads are in flight together.
        Words table = Words(push.histograms);
        for (uint first = 0; first < push.tiles; first += 8) {
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
    }
    uint subgroup = gl_SubgroupID;
    uint inclusive = subgroupInclusiveAdd(total);
    if (gl_SubgroupInvocationID == gl_SubgroupSize - 1) {
        subgroup_sums[subgroup] = inclusive;
    }
    barrier();
    uint smaller_values = inclusive - total;
    for (uint s = 0; s < subgroup; ++s) {
        smaller_values += subgroup_sums[s];
    }
    next_place[value] = smaller_values + in_tiles_before;
    for (uint round = 0; round < RADIX_ITEMS_PER_THREAD; ++round) {
        for (uint b = thread; b < SUBGROUPS * RADIX_BUCKETS / 2; b += RADIX_GROUP) {
            subgroup_counts[b / (RADIX_BUCKETS / 2)][b % (RADIX_BUCKETS / 2)] = 0;
        }
        barrier();
        uint item = tile * RADIX_TILE + round * RADIX_GROUP + thread;
        bool valid = item < push.count;
        uint key = tile_keys[round];
        uint digit = (key >> push.shift) & (RADIX_BUCKETS - 1);
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
        // The last lane of each digit in the subgroup reports the subgroup's count (two
        // digits share a word, hence the atomic).
        if (valid && earlier == matching - 1) {
            atomicAdd(subgroup_counts[subgroup][digit / 2], matching << (16 * (digit % 2)));
        }
        barrier();
        for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
            uint total = 0;
            for (uint s = 0; s < SUBGROUPS; ++s) {
                total += subgroup_count(s, b);
            }
            round_totals[b] = total;
        }
        if (valid) {
            uint before = 0;
            for (uint s = 0; s < subgroup; ++s) {
                before += subgroup_count(s, digit);
            }
            uint place = next_place[digit] + before + earlier;
            Words(push.keys_out).v[place] = key;
            Words(push.values_out).v[place] = tile_values[round];
            if (push.next_histograms != 0) {
                uint next_digit = (key >> (push.shift + RADIX_BITS)) & (RADIX_BUCKETS - 1);
                atomicAdd(Words(push.next_histograms).v[(place / RADIX_TILE) * RADIX_BUCKETS + next_digit], 1u);
            }
        }
        barrier();
        for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
            next_place[b] += round_totals[b];
        }
        // The next round's clearing waits on its own barrier after these updates.
    }
}
