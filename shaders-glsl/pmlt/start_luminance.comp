#version 460
//
// The chains' start, first step: each bootstrap record's Y* (the chains' target, mlt.glsl's
// mlt_target; 0 where it is not a positive
// finite number) and whether it carries light (1 or 0: a prefix sum then gives each lit
// record its place in the list the host reads back, pmlt/start.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "mlt.glsl"

layout(local_size_x = MLT_START_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltStartPush push;
};

layout(buffer_reference, scalar) writeonly buffer Floats { float v[]; };
layout(buffer_reference, scalar) writeonly buffer Words { uint v[]; };

void main() {
    uint record = flat_workgroup_index(gl_NumWorkGroups.x) * MLT_START_GROUP + gl_LocalInvocationID.x;
    if (record >= push.count) {
        return;
    }
    MltRecord r = MltRecords(push.records).v[record];
    float y = mlt_target(r.contribution, r.pixel, push.pixel_importance, push.pixels);
    bool lit = y > 0.0 && !isinf(y);
    Floats(push.luminances).v[record] = lit ? y : 0.0;
    Words(push.positions).v[record] = lit ? 1u : 0u;
}
