#version 460
//
// Draws lights with the shaders' own sampler (light_tree.glsl) for the tests: per draw, the
// chosen index and the probability that next-event estimation (and the MIS weight of a hit on
// that light) gets for it.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "rng.glsl"
#include "light_tree.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Results { uvec2 v[]; };

void main() {
    uint draw = gl_GlobalInvocationID.x;
    if (draw >= push.draws) {
        return;
    }
    float u = wt_random(push.seed, draw, 0, 0, 0);
    uint light = light_select(push.selection, push.tree, push.cdf, push.count, push.arity, u);
    float probability = light < push.count
                            ? light_selection_probability(push.selection, push.tree, push.cdf, push.count, push.arity, light)
                            : 0.0;
    Results(push.results).v[draw] = uvec2(light, floatBitsToUint(probability));
}
