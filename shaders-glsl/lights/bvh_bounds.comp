#version 460
//
// Light BVH build, step 3: bounds, cones and power from the leaves up, in one dispatch. Each
// leaf's thread climbs towards the root; at each interior node the first of its two children
// to arrive stops there and the second, which then knows both children are done, merges them
// and climbs on (the survivor-counter pattern of the power tree's build). No thread waits on
// another. Counters are left at zero for the next build.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"

const float PI = 3.14159265358979;

layout(local_size_x = LIGHT_BVH_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightBvhPush push;
};

layout(buffer_reference, scalar) coherent buffer Nodes { GpuLightBvhNode v[]; };
layout(buffer_reference, scalar) readonly buffer Parents { uint v[]; };
layout(buffer_reference, scalar) coherent buffer Counters { uint v[]; };

// The angle between unit vectors, accurate near 0 and pi.
float angle_between(vec3 a, vec3 b) {
    return dot(a, b) < 0.0 ? PI - 2.0 * asin(min(length(a + b) / 2.0, 1.0)) : 2.0 * asin(min(length(b - a) / 2.0, 1.0));
}

// The smallest cone (in pbrt-v4's construction) holding the cones (a, cos_a) and (b, cos_b).
void cone_union(vec3 a, float cos_a, vec3 b, float cos_b, out vec3 axis, out float cos_o) {
    float theta_a = acos(clamp(cos_a, -1.0, 1.0));
    float theta_b = acos(clamp(cos_b, -1.0, 1.0));
    float theta_d = angle_between(a, b);
    axis = a;
    cos_o = -1.0;
    if (min(theta_d + theta_b, PI) <= theta_a) {
        cos_o = cos_a;
        return;
    }
    if (min(theta_d + theta_a, PI) <= theta_b) {
        axis = b;
        cos_o = cos_b;
        return;
    }
    float theta_o = 0.5 * (theta_a + theta_d + theta_b);
    vec3 turn = cross(a, b);
    if (theta_o >= PI || !(dot(turn, turn) > 0.0)) {
        return;
    }
    // Rotate a towards b by theta_o - theta_a about their common perpendicular.
    float theta_r = theta_o - theta_a;
    vec3 k = normalize(turn);
    axis = normalize(a * cos(theta_r) + cross(k, a) * sin(theta_r));
    cos_o = cos(theta_o);
}

GpuLightBvhNode merged(GpuLightBvhNode a, GpuLightBvhNode b, uvec2 children) {
    GpuLightBvhNode node;
    bool has_a = a.power > 0.0;
    bool has_b = b.power > 0.0;
    if (has_a && has_b) {
        node.lower = min(a.lower, b.lower);
        node.upper = max(a.upper, b.upper);
        node.power = a.power + b.power;
        cone_union(a.axis, a.cos_theta_o, b.axis, b.cos_theta_o, node.axis, node.cos_theta_o);
        node.cos_theta_e = min(a.cos_theta_e, b.cos_theta_e);
    } else {
        // A dark child adds nothing an importance could see: the node is the other child's.
        node = has_b ? b : a;
    }
    node.children = children;
    node.pad0 = 0;
    node.pad1 = 0;
    return node;
}

void main() {
    uint k = flat_workgroup_index(gl_NumWorkGroups.x) * LIGHT_BVH_GROUP + gl_LocalInvocationID.x;
    if (k >= push.count || push.count < 2) {
        return;
    }
    Nodes nodes = Nodes(push.nodes);
    Parents parents = Parents(push.parents);
    Counters counters = Counters(push.counters);
    uint node = parents.v[push.count - 1 + k];
    while (node != LIGHT_BVH_NO_PARENT) {
        memoryBarrierBuffer();
        if (atomicAdd(counters.v[node], 1u) == 0u) {
            return;
        }
        counters.v[node] = 0u;
        memoryBarrierBuffer();
        uvec2 children = nodes.v[node].children;
        nodes.v[node] = merged(nodes.v[children.x], nodes.v[children.y], children);
        node = parents.v[node];
    }
}
