#version 460
//
// The flat inclusive CDF from the light tree (the down-sweep): a light's entry is its prefix
// among its siblings plus, for every ancestor, the sum of the ancestor's earlier siblings,
// which is the stored prefix of the sibling just before it. Added from the leaf up, smallest
// terms first.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"

layout(constant_id = 0) const uint ARITY = 32;
layout(local_size_x = LIGHT_CDF_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightTreePush push;
};

layout(buffer_reference, scalar) readonly buffer TreeFloats { float v[]; };
layout(buffer_reference, scalar) writeonly buffer CdfFloats { float v[]; };

void main() {
    uint light = flat_workgroup_index(gl_NumWorkGroups.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (light >= push.count) {
        return;
    }
    TreeFloats tree = TreeFloats(push.tree);
    float sum = tree.v[light];
    uint offset = 0;
    uint size = push.count;
    uint node = light;
    while (size > 1) {
        offset += size;
        size = (size - 1) / ARITY + 1;
        node /= ARITY;
        if (node % ARITY != 0) {
            sum += tree.v[offset + node - 1];
        }
    }
    CdfFloats(push.cdf).v[light] = sum;
}
