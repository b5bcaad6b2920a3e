#version 460
//
// The chains' start, first step: each bootstrap record's Y* (0 where it is not a positive
// finite number), so that the host reads back four bytes a record, not the sixteen of the
// record, to sum b_k and draw each chain's record (pmlt/start.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "mlt.glsl"

layout(local_size_x = MLT_START_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltStartPush push;
};

layout(buffer_reference, scalar) writeonly buffer Floats { float v[]; };

void main() {
    uint record = flat_workgroup_index(gl_NumWorkGroups.x) * MLT_START_GROUP + gl_LocalInvocationID.x;
    if (record >= push.count) {
        return;
    }
    float y = mlt_luminance(MltRecords(push.records).v[record].contribution);
    Floats(push.luminances).v[record] = y > 0.0 && !isinf(y) ? y : 0.0;
}
