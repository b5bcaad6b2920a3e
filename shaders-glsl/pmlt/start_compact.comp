#version 460
//
// The chains' start, second step: the lit records, in record order, as (record, Y* bits,
// pixel), placed by the prefix sum of start_luminance's flags; the last thread writes their
// number. Only 2-6% of uniform samples carry light, so the host reads back a few megabytes
// where the records are 134 (pmlt/start.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "mlt.glsl"

layout(local_size_x = MLT_START_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    MltStartPush push;
};

layout(buffer_reference, scalar) readonly buffer Floats { float v[]; };
layout(buffer_reference, scalar) readonly buffer Words { uint v[]; };
layout(buffer_reference, scalar) writeonly buffer Triples { uvec3 v[]; };
layout(buffer_reference, scalar) writeonly buffer Count { uint v; };

void main() {
    uint record = flat_workgroup_index(gl_NumWorkGroups.x) * MLT_START_GROUP + gl_LocalInvocationID.x;
    if (record >= push.count) {
        return;
    }
    Words positions = Words(push.positions);
    uint position = positions.v[record];
    uint before = record > 0 ? positions.v[record - 1] : 0u;
    if (position > before) {
        Triples(push.lit).v[before] = uvec3(record, floatBitsToUint(Floats(push.luminances).v[record]),
                                            MltRecords(push.records).v[record].pixel);
    }
    if (record == push.count - 1) {
        Count(push.lit_count).v = position;
    }
}
