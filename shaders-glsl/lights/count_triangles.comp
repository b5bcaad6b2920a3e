#version 460
//
// The first step of flattening: each emissive instance's light count, its mesh's triangles.
// A scan (primitives/scan) then turns the counts into each instance's end in the light array.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scene.glsl"

layout(local_size_x = LIGHT_COUNT_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightFlattenPush push;
};

layout(buffer_reference, scalar) readonly buffer InstanceList { uint v[]; };
layout(buffer_reference, scalar) writeonly buffer Counts { uint v[]; };

void main() {
    uint slot = flat_workgroup_index(gl_NumWorkGroups.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (slot >= push.emissive_instance_count) {
        return;
    }
    uint instance = InstanceList(push.emissive_instances).v[slot];
    Counts(push.counts).v[slot] = Meshes(push.meshes).v[Instances(push.instances).v[instance].mesh].triangle_count;
}
