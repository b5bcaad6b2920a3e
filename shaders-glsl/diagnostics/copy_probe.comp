#version 460
//
// A plain copy, 16 bytes a thread per iteration, grid-strided with four loads in flight: the
// memory-bandwidth floor that the benchmarks compare their kernels with.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 256) in;

layout(push_constant, scalar) uniform PushBlock {
    CopyProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Source { uvec4 v[]; };
layout(buffer_reference, scalar) writeonly buffer Target { uvec4 v[]; };

void main() {
    uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    Source source = Source(push.source);
    Target target = Target(push.target);
    for (uint i = gl_GlobalInvocationID.x; i < push.count; i += 4 * stride) {
        uvec4 words[4];
        for (uint k = 0; k < 4; ++k) {
            uint index = i + k * stride;
            words[k] = index < push.count ? source.v[index] : uvec4(0);
        }
        for (uint k = 0; k < 4; ++k) {
            uint index = i + k * stride;
            if (index < push.count) {
                target.v[index] = words[k];
            }
        }
    }
}
