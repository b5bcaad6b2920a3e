#version 460
//
// The light BVH's sampler and probability for the tests: at each shading point, `draws`
// choices (the light and the probability the sampler reported for it), and every light's
// probability from light_bvh_probability, the function the MIS weight of a hit calls.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "rng.glsl"
#include "light_bvh.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightBvhProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Points { GpuLightBvhProbePoint v[]; };
layout(buffer_reference, scalar) writeonly buffer Choices { uvec2 v[]; };
layout(buffer_reference, scalar) writeonly buffer Probabilities { float v[]; };

void main() {
    uint per_point = max(push.draws, push.lights);
    uint thread = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * PROBE_GROUP;
    uint point = thread / per_point;
    uint index = thread % per_point;
    if (point >= push.points_count) {
        return;
    }
    GpuLightBvhProbePoint p = Points(push.points).v[point];
    LightContext ctx = LightContext(p.position, p.normal, push.spatial != 0);
    if (index < push.draws) {
        float u = wt_random(push.seed, thread, 0, 0, 0);
        float probability;
        uint light = light_bvh_sample(push.nodes, 0xffffffffu, ctx, u, probability);
        Choices(push.choices).v[point * push.draws + index] = uvec2(light, floatBitsToUint(probability));
    }
    if (index < push.lights) {
        Probabilities(push.probabilities).v[point * push.lights + index] =
            light_bvh_probability(push.nodes, push.leaf_of, ctx, index);
    }
}
