// The subgroup-ary power tree and the flat CDF over lights (src/lights/tree.rs): their layout,
// and sampling and probability for each, as next-event estimation and the MIS weight of a
// light hit by BSDF sampling use them.
//
// Layout: level 0 holds one node per light, level l + 1 one node per group of `arity`
// consecutive nodes of level l, up to a top level of one node, the root. Levels are stored
// one after another. Each node stores the inclusive prefix sum of its value among its
// siblings (the nodes with the same parent), so the last sibling holds their sum and the root
// holds the total.
//
// The probability of a light is the one the stored floats give, computed by one function for
// both the sampler and the MIS weight: a light whose share rounds away is never sampled and
// gets probability exactly 0, so BSDF sampling alone (with MIS weight 1) accounts for it.
#ifndef WAVETRACE_LIGHT_TREE_GLSL
#define WAVETRACE_LIGHT_TREE_GLSL

#include "common.glsl"

layout(buffer_reference, scalar) readonly buffer LightTreeNodes { float v[]; };

// The largest float below a positive finite x.
float float_below(float x) {
    return uintBitsToFloat(floatBitsToUint(x) - 1u);
}

// Nodes at `level` of the tree over `count` >= 1 leaves, with `span` = arity^level.
uint light_tree_level_size(uint count, uint span) {
    return (count - 1u) / span + 1u;
}

// The top level, its offset, and arity^top.
void light_tree_top(uint count, uint arity, out uint top, out uint offset, out uint span) {
    top = 0u;
    offset = 0u;
    span = 1u;
    uint size = count;
    while (size > 1u) {
        offset += size;
        size = (size - 1u) / arity + 1u;
        span *= arity;
        top += 1u;
    }
}

// light_tree_top, and whether the root's total is positive (else no light can be chosen).
bool light_tree_has_power(LightTreeNodes tree, uint count, uint arity, out uint top, out uint offset, out uint span) {
    light_tree_top(count, arity, top, offset, span);
    return tree.v[offset] > 0.0;
}

// The probability that light_tree_sample picks `leaf`: the product, from the root down, of
// each ancestor's share of its sibling group.
float light_tree_probability(uint64_t tree_address, uint count, uint arity, uint leaf) {
    LightTreeNodes tree = LightTreeNodes(tree_address);
    uint top;
    uint offset;
    uint span;
    if (!light_tree_has_power(tree, count, arity, top, offset, span)) {
        return 0.0;
    }
    float probability = 1.0;
    for (uint level = top; level > 0u; --level) {
        span /= arity;
        uint size = light_tree_level_size(count, span);
        offset -= size;
        uint node = leaf / span;
        uint first = node - node % arity;
        uint last = min(first + arity, size) - 1u;
        float before = node > first ? tree.v[offset + node - 1u] : 0.0;
        float share = tree.v[offset + node] - before;
        if (!(share > 0.0)) {
            return 0.0;
        }
        probability *= share / tree.v[offset + last];
    }
    return probability;
}

// A leaf with probability light_tree_probability, from one uniform number: at each level the
// number picks a child of the current node by the children's prefix sums (a binary search
// among at most `arity` floats, one or two cache lines), then is rescaled to [0, 1) inside
// the chosen child's interval for the next level. Returns `count` when the total is 0.
uint light_tree_sample(uint64_t tree_address, uint count, uint arity, float u) {
    LightTreeNodes tree = LightTreeNodes(tree_address);
    uint top;
    uint offset;
    uint span;
    if (!light_tree_has_power(tree, count, arity, top, offset, span)) {
        return count;
    }
    uint node = 0u;
    for (uint level = top; level > 0u; --level) {
        span /= arity;
        uint size = light_tree_level_size(count, span);
        offset -= size;
        uint first = node * arity;
        uint last = min(first + arity, size) - 1u;
        float total = tree.v[offset + last];
        // Strictly below the total, so that some child's prefix exceeds it.
        float x = min(u * total, float_below(total));
        uint low = first;
        uint high = last;
        while (low < high) {
            uint middle = (low + high) / 2u;
            if (tree.v[offset + middle] > x) {
                high = middle;
            } else {
                low = middle + 1u;
            }
        }
        float before = low > first ? tree.v[offset + low - 1u] : 0.0;
        u = clamp((x - before) / (tree.v[offset + low] - before), 0.0, float_below(1.0));
        node = low;
    }
    return node;
}

// The flat inclusive CDF (unnormalised; its last entry is the total).
float light_cdf_probability(uint64_t cdf_address, uint count, uint light) {
    LightTreeNodes cdf = LightTreeNodes(cdf_address);
    float total = cdf.v[count - 1u];
    if (!(total > 0.0)) {
        return 0.0;
    }
    float before = light > 0u ? cdf.v[light - 1u] : 0.0;
    return (cdf.v[light] - before) / total;
}

// The first entry above u x total, by binary search. Returns `count` when the total is 0.
uint light_cdf_sample(uint64_t cdf_address, uint count, float u) {
    LightTreeNodes cdf = LightTreeNodes(cdf_address);
    float total = cdf.v[count - 1u];
    if (!(total > 0.0)) {
        return count;
    }
    float x = min(u * total, float_below(total));
    uint low = 0u;
    uint high = count - 1u;
    while (low < high) {
        uint middle = (low + high) / 2u;
        if (cdf.v[middle] > x) {
            high = middle;
        } else {
            low = middle + 1u;
        }
    }
    return low;
}


// One light by the chosen strategy, or `count` when none can be chosen.
uint light_select(uint selection, uint64_t tree, uint64_t cdf, uint count, uint arity, float u) {
    if (count == 0u) {
        return 0u;
    }
    if (selection == LIGHT_SELECTION_TREE) {
        return light_tree_sample(tree, count, arity, u);
    }
    if (selection == LIGHT_SELECTION_CDF) {
        return light_cdf_sample(cdf, count, u);
    }
    return min(uint(u * float(count)), count - 1u);
}

float light_selection_probability(uint selection, uint64_t tree, uint64_t cdf, uint count, uint arity, uint light) {
    if (selection == LIGHT_SELECTION_TREE) {
        return light_tree_probability(tree, count, arity, light);
    }
    if (selection == LIGHT_SELECTION_CDF) {
        return light_cdf_probability(cdf, count, light);
    }
    return 1.0 / float(count);
}

#endif
