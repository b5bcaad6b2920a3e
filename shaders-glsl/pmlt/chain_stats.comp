#version 460
//
// --stats' acceptance and moves per path length without reading the chains back (80 MB at a
// million chains): each workgroup sums the counters of one run of chains of one length (the
// host's table; a length's chains are consecutive), in a fixed order, so that the sums are
// the same on every run. The host adds the runs of each length in f64 (pmlt/mod.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "mlt.glsl"

layout(local_size_x = MLT_STATS_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltStatsPush push;
};

layout(buffer_reference, scalar) readonly buffer Runs { uvec2 v[]; };
layout(buffer_reference, scalar) writeonly buffer Sums { vec2 v[]; };

shared vec2 partial[MLT_STATS_GROUP];

void main() {
    uint run = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    if (run >= push.runs) {
        return;
    }
    uint thread = gl_LocalInvocationID.x;
    uvec2 chains = Runs(push.table).v[run];
    vec2 sum = vec2(0.0);
    for (uint i = thread; i < chains.y; i += MLT_STATS_GROUP) {
        MltChain chain = MltChains(push.chains).v[chains.x + i];
        sum += vec2(chain.acceptance, float(chain.moves));
    }
    partial[thread] = sum;
    barrier();
    for (uint half_width = MLT_STATS_GROUP / 2; half_width > 0; half_width /= 2) {
        if (thread < half_width) {
            partial[thread] += partial[thread + half_width];
        }
        barrier();
    }
    if (thread == 0) {
        Sums(push.sums).v[run] = partial[0];
    }
}
