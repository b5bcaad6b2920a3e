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
    node.pad1 = links.w;
    return node;
}

LightBvhNodeVec4s light_bvh_node_words(GpuLightBvhNode node) {
    LightBvhNodeVec4s words;
    words.w[0] = vec4(node.lower, node.power);
    words.w[1] = vec4(node.upper, node.cos_theta_o);
    words.w[2] = vec4(node.axis, node.cos_theta_e);
    words.w[3] = uintBitsToFloat(uvec4(node.children, node.split, node.pad1));
    return words;
}

#endif
