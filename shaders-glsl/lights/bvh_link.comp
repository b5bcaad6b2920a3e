#version 460
//
// Light BVH build, step 2, after the sort: the tree's shape in one dispatch (Karras 2012,
// "Maximizing Parallelism in the Construction of BVHs, Octrees, and k-d Trees"). Interior node
// i covers a range of sorted leaves with one end at i, found from the lengths of the common
// prefixes of neighbouring keys (ties broken by position), and splits it where the prefix
// changes; each thread also puts leaf i in place. Bounds come in the next step.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"

layout(local_size_x = LIGHT_BVH_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightBvhPush push;
};

layout(buffer_reference, scalar) buffer Nodes { GpuLightBvhNode v[]; };
layout(buffer_reference, scalar) buffer Words { uint v[]; };

// The common prefix of sorted keys i and j, the position breaking ties; -1 outside.
int common_prefix(Words keys, int i, int j) {
    if (j < 0 || j >= int(push.count)) {
        return -1;
    }
    uint a = keys.v[i];
    uint b = keys.v[j];
    return a == b ? 63 - findMSB(uint(i ^ j)) : 31 - findMSB(a ^ b);
}

// The node index of interior node k or of sorted leaf k.
uint interior(uint k) {
    return k;
}

uint leaf_node(uint k) {
    return push.count - 1 + k;
}

void main() {
    uint k = flat_workgroup_index(gl_NumWorkGroups.x) * LIGHT_BVH_GROUP + gl_LocalInvocationID.x;
    if (k >= push.count) {
        return;
    }
    Words keys = Words(push.keys);
    Words parents = Words(push.parents);
    Nodes nodes = Nodes(push.nodes);
    uint light = Words(push.values).v[k];
    nodes.v[leaf_node(k)] = Nodes(push.leaves).v[light];
    Words(push.leaf_of).v[light] = leaf_node(k);
    if (k == 0) {
        parents.v[0] = LIGHT_BVH_NO_PARENT;
    }
    if (k + 1 >= push.count) {
        return;
    }

    int i = int(k);
    int direction = common_prefix(keys, i, i + 1) > common_prefix(keys, i, i - 1) ? 1 : -1;
    int shortest = common_prefix(keys, i, i - direction);
    // The range's other end: a doubling search, then a binary one.
    int reach = 2;
    while (common_prefix(keys, i, i + reach * direction) > shortest) {
        reach *= 2;
    }
    int length = 0;
    for (int step = reach / 2; step >= 1; step /= 2) {
        if (common_prefix(keys, i, i + (length + step) * direction) > shortest) {
            length += step;
        }
    }
    int j = i + length * direction;
    int node_prefix = common_prefix(keys, i, j);
    // The split: the last position that shares more than the range's prefix with i.
    int split = 0;
    for (int step = (length + 1) / 2, remaining = length;; step = (step + 1) / 2) {
        if (split + step < remaining + 1 && common_prefix(keys, i, i + (split + step) * direction) > node_prefix) {
            split += step;
        }
        if (step == 1) {
            break;
        }
    }
    int gamma = i + split * direction + min(direction, 0);
    uint left = min(i, j) == gamma ? leaf_node(uint(gamma)) : interior(uint(gamma));
    uint right = max(i, j) == gamma + 1 ? leaf_node(uint(gamma + 1)) : interior(uint(gamma + 1));
    nodes.v[interior(k)].children = uvec2(left, right);
    parents.v[left] = interior(k);
    parents.v[right] = interior(k);
}
