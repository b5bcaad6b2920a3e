#version 460
//
// Packs unit vectors into 30 bits and back (packed_normal.glsl), for the tests, which compare
// both with the CPU twin (src/integrator/bdpt/packed_normal.rs).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "packed_normal.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    PackedNormalProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Normals { vec4 v[]; };
layout(buffer_reference, scalar) writeonly buffer Results { PackedNormalProbeResult v[]; };

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.count) {
        return;
    }
    uint bits = pack_unit_vector(Normals(push.normals).v[index].xyz);
    Results(push.results).v[index] = PackedNormalProbeResult(unpack_unit_vector(bits), bits);
}
