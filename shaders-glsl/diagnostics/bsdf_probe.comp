#version 460
//
// Evaluates and samples the shaders' BSDF (bsdf.glsl) for the tests, which compare it with
// the CPU twin (src/bsdf/mod.rs) and check its sampling on the GPU's own numbers.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "bsdf.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    BsdfProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Cases { BsdfProbeCase v[]; };
layout(buffer_reference, scalar) writeonly buffer Results { BsdfProbeResult v[]; };

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.count) {
        return;
    }
    BsdfProbeCase t = Cases(push.cases).v[index];
    Bsdf b = Bsdf(t.base_color, t.metallic, t.specular_color, t.specular, t.alpha, t.transmission, t.ior, t.clearcoat,
                  t.coat_alpha, t.coat_normal);
    BsdfProbeResult r;
    r.eval = bsdf_eval(b, t.wo, t.wi, t.entering != 0, r.eval_pdf);
    BsdfSample s;
    bool sampled = bsdf_sample(b, t.wo, t.entering != 0, t.u, s);
    r.sample_wi = s.wi;
    r.sample_pdf = s.pdf;
    r.sample_weight = s.weight;
    r.flags = sampled ? 1u | (s.transmitted ? 2u : 0u) | (s.delta ? 4u : 0u) : 0u;
    Results(push.results).v[index] = r;
}
