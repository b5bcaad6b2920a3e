// A light BVH node (`GpuLightBvhNode`, 64 bytes) as the four 16-byte words it is stored in,
// so that a node moves as four vector loads or stores, not sixteen scalar ones. Each shader
// declares the buffer of words with the qualifiers it needs (readonly for sampling, coherent
// for the build's climb).
#ifndef WAVETRACE_LIGHT_BVH_WORDS_GLSL
#define WAVETRACE_LIGHT_BVH_WORDS_GLSL

#include "common.glsl"

struct LightBvhNodeVec4s {
    vec4 w[4];
};

GpuLightBvhNode light_bvh_node_from_words(LightBvhNodeVec4s words) {
    uvec4 links = floatBitsToUint(words.w[3]);
    GpuLightBvhNode node;
    node.lower = words.w[0].xyz;
    node.power = words.w[0].w;
    node.upper = words.w[1].xyz;
    node.cos_theta_o = words.w[1].w;
    node.axis = words.w[2].xyz;
    node.cos_theta_e = words.w[2].w;
    node.children = links.xy;
    node.split = links.z;
    node.behind = words.w[3].w;
    return node;
}

LightBvhNodeVec4s light_bvh_node_words(GpuLightBvhNode node) {
    LightBvhNodeVec4s words;
    words.w[0] = vec4(node.lower, node.power);
    words.w[1] = vec4(node.upper, node.cos_theta_o);
    words.w[2] = vec4(node.axis, node.cos_theta_e);
    words.w[3] = vec4(uintBitsToFloat(uvec3(node.children, node.split)), node.behind);
    return words;
}

// A node's `behind` from its bounds and cones (bvh/reference.rs's `behind_plane` on the CPU):
// the lowest height of its box along the cone axis, less the margin the cone's spread needs
// over the farthest a point inside the bounding sphere can be from the box (twice the
// radius). A point below it sees the back of every light of the node, or their edges.
float light_bvh_behind(GpuLightBvhNode node) {
    if (!(node.power > 0.0) || node.cos_theta_o + node.cos_theta_e <= 0.0) {
        return uintBitsToFloat(0xff800000u);
    }
    float sin_o = sqrt(max(1.0 - node.cos_theta_o * node.cos_theta_o, 0.0));
    float sin_e = sqrt(max(1.0 - node.cos_theta_e * node.cos_theta_e, 0.0));
    float margin = max(sin_o * sin_e - node.cos_theta_o * node.cos_theta_e, 0.0);
    vec3 half_extent = 0.5 * (node.upper - node.lower);
    return dot(node.axis, 0.5 * (node.lower + node.upper)) - dot(abs(node.axis), half_extent)
           - 2.0 * margin * length(half_extent);
}

#endif
