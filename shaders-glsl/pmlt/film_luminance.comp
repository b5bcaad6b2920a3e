#version 460
//
// The float splat film's luminance, summed: what a Metropolis render's self-normalisation
// divides by (pmlt/mod.rs, `normalisation`). Each workgroup sums its pixels' luminance (the
// chains' own measure, mlt_luminance) in a fixed order and writes one float; the host adds the
// workgroups' sums in f64.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "mlt.glsl"
#include "splat_film.glsl"

layout(local_size_x = MLT_STATS_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltFilmSumPush push;
};

layout(buffer_reference, scalar) writeonly buffer Sums { float v[]; };

shared float partial[MLT_STATS_GROUP];

void main() {
    uint group = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;
    uint thread = gl_LocalInvocationID.x;
    uint pixel = group * MLT_STATS_GROUP + thread;
    float sum = 0.0;
    if (pixel < push.pixels) {
        sum = mlt_luminance(splat_sum(push.film, pixel));
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
        Sums(push.sums).v[group] = partial[0];
    }
}
