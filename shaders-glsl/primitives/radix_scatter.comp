#version 460
//
// Radix sort, pass 2 of each digit: each workgroup moves its tile's (key, value) pairs to
// their places, stably. The tile is taken in rounds of RADIX_GROUP items in index order; in
// a round an item's rank among the earlier items of its digit is found without ordering
// atomics: a subgroup matches equal digits with one ballot per digit bit, the counts of the
// subgroups before it come from shared memory, and the rounds before add theirs. Stability is
// what lets an LSD sort take the digits one after another.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require

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

uint subgroup_count(uint subgroup, uint digit) {
    return (subgroup_counts[subgroup][digit / 2] >> (16 * (digit % 2))) & 0xffffu;
}

void main() {
    uint thread = gl_LocalInvocationID.x;
    uint tile = flat_workgroup_index(gl_NumWorkGroups.x);
    if (tile >= push.tiles) {
        return;
    }
    for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
        uint slot = b * push.tiles + tile;
        // The scan is inclusive: this tile's first place is the sum before its own count.
        next_place[b] = Words(push.scanned).v[slot] - Words(push.histograms).v[slot];
    }
    uint subgroup = gl_SubgroupID;
    Words keys_in = Words(push.keys_in);
    Words values_in = Words(push.values_in);
    for (uint round = 0; round < RADIX_ITEMS_PER_THREAD; ++round) {
        for (uint b = thread; b < SUBGROUPS * RADIX_BUCKETS / 2; b += RADIX_GROUP) {
            subgroup_counts[b / (RADIX_BUCKETS / 2)][b % (RADIX_BUCKETS / 2)] = 0;
        }
        barrier();
        uint item = tile * RADIX_TILE + round * RADIX_GROUP + thread;
        bool valid = item < push.count;
        uint key = valid ? keys_in.v[item] : 0;
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
            Words(push.values_out).v[place] = values_in.v[item];
        }
        barrier();
        for (uint b = thread; b < RADIX_BUCKETS; b += RADIX_GROUP) {
            next_place[b] += round_totals[b];
        }
        // The next round's clearing waits on its own barrier after these updates.
    }
}
