#version 460
//
// Writes numbers 0 to `count` of the primary sample that one state's ids reproduce
// (mlt.glsl), so that tests compare them with the CPU twin (src/integrator/pmlt/sample.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "mlt.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltProbePush push;
};

layout(buffer_reference, scalar) writeonly buffer Floats {
    float v[];
};

void main() {
    uint dimension = gl_GlobalInvocationID.x;
    if (dimension >= push.count) {
        return;
    }
    // mlt_number reads only these two of the constants.
    PassConstants c;
    c.mlt_dimensions = push.dimensions;
    c.mlt_sigma = push.sigma;
    MltIds ids = MltIds(push.base_key, push.base_index, push.offset_key, push.offset_index);
    Floats(push.values).v[dimension] = mlt_number(c, ids, dimension);
}
