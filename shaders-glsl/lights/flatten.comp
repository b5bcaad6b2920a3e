#version 460
//
// The flattened light array: light i belongs to the first emissive instance whose inclusive
// end (the scanned counts) exceeds i, found by binary search, and is that instance's
// triangle i - start; its entry holds what finding the triangle needs of the mesh. Each
// instance's first light also records where its lights start, so a light hit by a path finds
// its own index (and probability) without a search.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scene.glsl"

layout(local_size_x = LIGHT_FLATTEN_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightFlattenPush push;
};

layout(buffer_reference, scalar) readonly buffer InstanceList { uint v[]; };
layout(buffer_reference, scalar) readonly buffer Ends { uint v[]; };
layout(buffer_reference, scalar) writeonly buffer LightMap { GpuLightEntry v[]; };
layout(buffer_reference, scalar) writeonly buffer FirstLights { uint v[]; };

void main() {
    uint light = flat_workgroup_index(gl_NumWorkGroups.x) * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    if (light >= push.light_count) {
        return;
    }
    Ends ends = Ends(push.counts);
    uint low = 0;
    uint high = push.emissive_instance_count - 1;
    while (low < high) {
        uint middle = (low + high) / 2;
        if (ends.v[middle] > light) {
            high = middle;
        } else {
            low = middle + 1;
        }
    }
    uint start = low > 0 ? ends.v[low - 1] : 0;
    uint instance = InstanceList(push.emissive_instances).v[low];
    GpuMesh mesh = Meshes(push.meshes).v[Instances(push.instances).v[instance].mesh];
    uint triangle = light - start;
    LightMap(push.map).v[light] =
        GpuLightEntry(instance, mesh.first_vertex, mesh.first_index + 3 * triangle, mesh.material);
    if (light == start) {
        FirstLights(push.instance_light_offset).v[instance] = start;
    }
}
