#version 460
//
// The chains' start, last step: each chain's first state from the lit record the host drew
// for it (an entry of start_compact's list; pmlt/start.rs, whose `host_chain` is the CPU
// twin). Sample i of length k + 1 is record k + i depth (mlt.glsl's mlt_path_length); its
// ids are the bootstrap's key with index record + 1 for both base and offset, as the
// bootstrap traced it. The chain's own
// key is squares_key of its number, computed here rather than on the host, where a million
// of them took a tenth of a second. A redraw after a later bootstrap round moves some chains
// to that round's records (MLT_KEEP_CHAIN leaves the others) and keeps their lengths, so that
// the chains start from every round's samples in proportion to Y*.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "mlt.glsl"

layout(local_size_x = MLT_START_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltStartPush push;
};

layout(buffer_reference, scalar) readonly buffer Words { uint v[]; };
layout(buffer_reference, scalar) readonly buffer Triples { uvec3 v[]; };

void main() {
    uint chain = flat_workgroup_index(gl_NumWorkGroups.x) * MLT_START_GROUP + gl_LocalInvocationID.x;
    if (chain >= push.count) {
        return;
    }
    uint chosen = Words(push.chosen).v[chain];
    if (chosen == MLT_KEEP_CHAIN) {
        return;
    }
    uvec3 entry = Triples(push.lit).v[chosen];
    uint record_index = entry.x;
    MltRecord record = MltRecords(push.records).v[record_index];
    MltChain state;
    // A round's records are of the lengths of its table; a chain is redrawn within its own.
    uint path_length = push.redraw != 0u ? MltChains(push.chains).v[chain].path_length : record_index % push.depth + 1u;
    state.key = squares_key(push.seed, chain);
    state.base_key = push.bootstrap_key;
    state.base_index = uint64_t(record_index) + 1ul;
    state.offset_key = push.bootstrap_key;
    state.offset_index = uint64_t(record_index) + 1ul;
    state.contribution = record.contribution;
    state.luminance = uintBitsToFloat(entry.y);
    state.pixel = record.pixel;
    state.path_length = path_length;
    state.moves = 0u;
    state.iterations = 0u;
    state.acceptance = 0.0;
    state.pad0 = 0u;
    MltChains(push.chains).v[chain] = state;
}
