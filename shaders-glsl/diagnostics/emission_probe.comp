#version 460
//
// Light subpath starts (emission.glsl) from the lights of a scene, so that tests can check
// that their weights add up to the power the lights emit: per sample (weight, 1), or zeros
// where no light could be chosen; then (origin, cos_out) and (direction, hittable).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "rng.glsl"
#include "emission.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    EmissionProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Constants { PassConstants c; };
layout(buffer_reference, scalar) writeonly buffer Results { vec4 v[]; };

void main() {
    uint i = gl_GlobalInvocationID.x;
    if (i >= push.count) {
        return;
    }
    PassConstants c = Constants(push.constants).c;
    float u[5];
    for (uint d = 0; d < 5; ++d) {
        u[d] = wt_random(push.seed, i, 0, 0, d);
    }
    EmissionSample e;
    bool made = sample_emission(c, u[0], vec2(u[1], u[2]), vec2(u[3], u[4]), e);
    Results results = Results(push.results);
    results.v[3 * i] = made ? vec4(e.weight, 1.0) : vec4(0.0);
    results.v[3 * i + 1] = vec4(e.origin, e.cos_out);
    results.v[3 * i + 2] = vec4(e.direction, e.hittable ? 1.0 : 0.0);
}
