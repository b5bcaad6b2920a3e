#version 460
//
// Light BVH build, after the sort: the tree's shape, bounds, cones and power in one dispatch,
// bottom-up (Apetrei 2014, "Fast and Simple Agglomerative LBVH Construction"). Each sorted
// leaf's thread climbs towards the root holding the range of leaves its subtree covers. A
// range's parent splits it from its neighbour on the side whose keys share the longer
// prefix (ties between equal keys broken by position, as in Karras 2012), so the tree is
// Karras' binary radix tree, numbered as Karras numbers it (an interior node is indexed by
// the end of its range that meets its sibling; the root is 0), without Karras' binary
// searches. At each split the first of the two children to arrive leaves its far end in the
// split's slot and stops; the second, which then knows both children are done, merges them
// and climbs on. No thread waits on another; slots are left at zero for the next build.
//
// A climb's levels are a chain of memory round trips (the node's stores made visible, the
// slot's exchange, the sibling's load), so the nodes whose leaves all lie in one subgroup's
// are merged first among its lanes, by shuffles: each round, a node that is the left child
// of its parent takes its right neighbour if that is a finished right child. Only the nodes
// that reach past the subgroup climb through memory.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require

#include "common.glsl"
#include "dispatch.glsl"
#include "light_bvh_words.glsl"

layout(local_size_x = LIGHT_BVH_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightBvhPush push;
};

// Nodes as 16-byte words (light_bvh_words.glsl): a node is four vector loads or stores.
layout(buffer_reference, std430, buffer_reference_align = 16) coherent buffer NodeWords { vec4 v[]; };
// The leaves, written by an earlier dispatch, through a view of their own: read as coherent
// nodes they cost 1.7 us more a build at 10^5 emitters on the H100.
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer LeafWords { vec4 v[]; };
layout(buffer_reference, scalar) readonly buffer Keys { uint v[]; };
layout(buffer_reference, scalar) buffer Words { uint v[]; };
layout(buffer_reference, scalar) coherent buffer Slots { uint v[]; };

const float PI = 3.14159265358979;

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
    if (theta_o >= PI) {
        return;
    }
    if (!(dot(turn, turn) > 0.0)) {
        // Axes with no perpendicular: the same direction apart from the rounding of their
        // lengths (lights of one plane whose normals were normalised with an approximate
        // reciprocal square root, as NVIDIA's is), or opposite ones (the whole sphere). Taken
        // for the whole sphere, flat clusters lost their orientation: a third of the nodes of
        // a room of lights on its walls, on the H100.
        if (dot(a, b) > 0.0) {
            cos_o = cos(min(max(theta_a, theta_b + theta_d), PI));
        }
        return;
    }
    // Rotate a towards b by theta_o - theta_a about their common perpendicular.
    float theta_r = theta_o - theta_a;
    vec3 k = normalize(turn);
    axis = normalize(a * cos(theta_r) + cross(k, a) * sin(theta_r));
    cos_o = cos(theta_o);
}

GpuLightBvhNode merged(GpuLightBvhNode a, GpuLightBvhNode b, uvec2 children, uint split) {
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
    node.split = split;
    node.behind = light_bvh_behind(node);
    return node;
}

// The common prefix of sorted keys i and i + 1, the position breaking ties (bvh_link's
// measure in Karras 2012); -1 past either end, so that an end of the leaves never splits.
int neighbours_prefix(Keys keys, int i) {
    if (i < 0 || i + 1 >= int(push.count)) {
        return -1;
    }
    uint a = keys.v[i];
    uint b = keys.v[i + 1];
    return a == b ? 63 - findMSB(uint(i ^ (i + 1))) : 31 - findMSB(a ^ b);
}

GpuLightBvhNode load_node(NodeWords nodes, uint index) {
    LightBvhNodeVec4s words;
    for (uint w = 0; w < 4; ++w) {
        words.w[w] = nodes.v[4 * index + w];
    }
    return light_bvh_node_from_words(words);
}

void store_node(NodeWords nodes, uint index, GpuLightBvhNode node) {
    LightBvhNodeVec4s words = light_bvh_node_words(node);
    for (uint w = 0; w < 4; ++w) {
        nodes.v[4 * index + w] = words.w[w];
    }
}

uint leaf_node(uint k) {
    return push.count - 1 + k;
}

// Finishes a node whose index is known: its parent's stores for its children, then its own.
void finish_node(NodeWords nodes, Words parents, uint node, uvec2 children, bool interior, GpuLightBvhNode subtree) {
    if (interior) {
        parents.v[children.x] = node;
        parents.v[children.y] = node;
    }
    store_node(nodes, node, subtree);
}

// Whether a node over leaves [first_leaf, last_leaf] is the left child of its parent.
bool is_left_child(uint first_leaf, uint last_leaf, int prefix_before, int prefix_after) {
    return first_leaf == 0 || (last_leaf != push.count - 1 && prefix_after > prefix_before);
}

void main() {
    // Leaves by subgroup and lane, so that a subgroup's lanes hold consecutive leaves (the
    // pipeline has full subgroups).
    uint lane = gl_SubgroupInvocationID;
    uint base = flat_workgroup_index(gl_NumWorkGroups.x) * LIGHT_BVH_GROUP + gl_SubgroupID * gl_SubgroupSize;
    uint k = base + lane;
    bool holds_node = k < push.count;
    Keys keys = Keys(push.keys);
    NodeWords nodes = NodeWords(push.nodes);
    Words parents = Words(push.parents);
    Slots slots = Slots(push.counters);
    // Lanes past the last leaf hold an empty node, which no lane takes.
    GpuLightBvhNode subtree;
    subtree.lower = vec3(0.0);
    subtree.upper = vec3(0.0);
    subtree.axis = vec3(0.0, 0.0, 1.0);
    subtree.power = 0.0;
    subtree.cos_theta_o = 1.0;
    subtree.cos_theta_e = 0.0;
    uint last = push.count - 1;
    uint first_leaf = k;
    uint last_leaf = k;
    uint node = leaf_node(k);
    uvec2 children = uvec2(LIGHT_BVH_NO_PARENT);
    int prefix_before = -1;
    int prefix_after = -1;
    if (holds_node) {
        uint light = Keys(push.values).v[k];
        LightBvhNodeVec4s leaf_words;
        for (uint w = 0; w < 4; ++w) {
            leaf_words.w[w] = LeafWords(push.leaves).v[4 * light + w];
        }
        subtree = light_bvh_node_from_words(leaf_words);
        subtree.split = k;
        Words(push.leaf_of).v[light] = leaf_node(k);
        // One round trip a level is what a climb costs: the two prefixes at the range's ends
        // and the sibling's subtree are fetched together after the slot answers.
        prefix_before = neighbours_prefix(keys, int(first_leaf) - 1);
        prefix_after = neighbours_prefix(keys, int(last_leaf));
    }

    // The subgroup's rounds. A lane holds the node that starts at its leaf, while it is a
    // node no other has taken.
    for (;;) {
        bool left_child = is_left_child(first_leaf, last_leaf, prefix_before, prefix_after);
        bool root = first_leaf == 0 && last_leaf == last;
        uint right_lane = last_leaf + 1 - base;
        bool right_inside = holds_node && left_child && !root && right_lane < gl_SubgroupSize;
        uint from = right_inside ? right_lane : lane;
        uvec4 starts = subgroupBallot(holds_node);
        bool right_is_right_child = !subgroupShuffle(left_child, from);
        bool right_holds = subgroupBallotBitExtract(starts, from);
        bool takes_right = right_inside && right_holds && right_is_right_child;
        uint right_last = subgroupShuffle(last_leaf, from);
        int right_prefix_after = subgroupShuffle(prefix_after, from);
        vec3 right_lower = subgroupShuffle(subtree.lower, from);
        vec3 right_upper = subgroupShuffle(subtree.upper, from);
        vec3 right_axis = subgroupShuffle(subtree.axis, from);
        float right_power = subgroupShuffle(subtree.power, from);
        float right_cos_o = subgroupShuffle(subtree.cos_theta_o, from);
        float right_cos_e = subgroupShuffle(subtree.cos_theta_e, from);
        // A right child is taken by the node that ends just before it, which starts at the
        // nearest lane below that still holds a node.
        // (Every lane shuffles: a shuffle from a lane that skipped it reads nothing defined, and
        // a condition's short circuit would skip it on NVIDIA.)
        uvec4 starts_below = starts & gl_SubgroupLtMask;
        bool has_left_neighbour = any(notEqual(starts_below, uvec4(0)));
        uint highest_below = subgroupBallotFindMSB(starts_below);
        uint left_lane = has_left_neighbour ? highest_below : lane;
        bool left_takes = subgroupShuffle(takes_right, left_lane);
        bool taken = holds_node && !left_child && has_left_neighbour && left_takes;
        if (all(equal(subgroupBallot(takes_right), uvec4(0)))) {
            break;
        }
        if (takes_right || taken) {
            // Both children are finished: each knows its index from its side.
            node = first_leaf == last_leaf ? leaf_node(k) : (left_child ? last_leaf : first_leaf);
            finish_node(nodes, parents, node, children, last_leaf > first_leaf, subtree);
        }
        if (takes_right) {
            uint split = last_leaf;
            uint right_first = split + 1;
            uint right_node = right_last == right_first ? leaf_node(right_first) : right_first;
            GpuLightBvhNode right;
            right.lower = right_lower;
            right.upper = right_upper;
            right.axis = right_axis;
            right.power = right_power;
            right.cos_theta_o = right_cos_o;
            right.cos_theta_e = right_cos_e;
            children = uvec2(node, right_node);
            subtree = merged(subtree, right, children, split);
            last_leaf = right_last;
            prefix_after = right_prefix_after;
        }
        holds_node = holds_node && !taken;
    }
    if (!holds_node) {
        return;
    }

    for (;;) {
        bool root = first_leaf == 0 && last_leaf == last;
        bool left_child = is_left_child(first_leaf, last_leaf, prefix_before, prefix_after);
        if (last_leaf > first_leaf) {
            node = root ? 0 : (left_child ? last_leaf : first_leaf);
        }
        finish_node(nodes, parents, node, children, last_leaf > first_leaf, subtree);
        if (root) {
            parents.v[node] = LIGHT_BVH_NO_PARENT;
            return;
        }
        uint split = left_child ? last_leaf : first_leaf - 1;
        memoryBarrierBuffer();
        uint far_end = atomicExchange(slots.v[split], (left_child ? first_leaf : last_leaf) + 1);
        if (far_end == 0) {
            return;
        }
        // The sibling's node was made visible before its slot was written. Reading it waits on
        // no store of this thread: the slot is cleared after the reads (the next level's
        // barrier, or the end of the dispatch, publishes that).
        memoryBarrierBuffer();
        far_end -= 1;
        uint sibling;
        if (left_child) {
            last_leaf = far_end;
            sibling = split + 1 == last_leaf ? leaf_node(split + 1) : split + 1;
            children = uvec2(node, sibling);
            prefix_after = neighbours_prefix(keys, int(last_leaf));
        } else {
            first_leaf = far_end;
            sibling = first_leaf == split ? leaf_node(split) : split;
            children = uvec2(sibling, node);
            prefix_before = neighbours_prefix(keys, int(first_leaf) - 1);
        }
        GpuLightBvhNode other = load_node(nodes, sibling);
        slots.v[split] = 0u;
        subtree = left_child ? merged(subtree, other, children, split) : merged(other, subtree, children, split);
    }
}
