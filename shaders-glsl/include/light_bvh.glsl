// The light BVH (src/lights/bvh/): choosing an emitter by a bound on what each cluster of
// emitters can send to the shading point (Conty Estevez and Kulla 2018, as Cycles and pbrt-v4
// do), and the probability of that choice for a given light, computed by the same function so
// that the MIS weight of a light hit by BSDF sampling uses exactly the sampler's numbers.
//
// Layout: a binary tree of `GpuLightBvhNode`s, interior nodes first (the root is node 0),
// then one leaf per light; `leaf_of` holds each light's node (and the build's `parents` each
// node's parent, which sampling does not need).
// docs/LIGHTS.md derives the importance and lists where it fails.
#ifndef WAVETRACE_LIGHT_BVH_GLSL
#define WAVETRACE_LIGHT_BVH_GLSL

#include "common.glsl"
#include "light_tree.glsl"
#include "light_bvh_words.glsl"

// The nodes (`GpuLightBvhNode`, 64 bytes) as four 16-byte words each, so that a node is four
// 16-byte loads. (Read as structs of scalar layout, the same samples cost 19-30% more shading
// time on the H100: docs/BENCHMARKS.md.)
layout(buffer_reference, std430, buffer_reference_align = 16) readonly buffer LightBvhNodeWords { vec4 v[]; };
layout(buffer_reference, scalar) readonly buffer LightBvhLinks { uint v[]; };

// Where the choice is made. `spatial` false: by power alone, the same for every point (what
// bidirectional light subpaths need, whose MIS weights assume a choice that does not depend
// on the receiver). `normal` zero: no hemisphere (transmissive surfaces, media).
struct LightContext {
    vec3 point;
    vec3 normal;
    bool spatial;
};

// A path keeps the normal of the context it sampled its last direction from in one word
// (octahedral, 16 bits a coordinate), and next-event estimation uses the decoded normal too,
// so that both see the same context. LIGHT_NORMAL_NONE: no hemisphere.
const uint LIGHT_NORMAL_NONE = 0xffffffffu;

uint encode_light_normal(vec3 n) {
    if (n == vec3(0.0)) {
        return LIGHT_NORMAL_NONE;
    }
    n /= abs(n.x) + abs(n.y) + abs(n.z);
    vec2 folded = n.z >= 0.0 ? n.xy : (1.0 - abs(n.yx)) * vec2(n.x >= 0.0 ? 1.0 : -1.0, n.y >= 0.0 ? 1.0 : -1.0);
    uint code = packSnorm2x16(folded);
    return code == LIGHT_NORMAL_NONE ? code - 1u : code;
}

vec3 decode_light_normal(uint code) {
    if (code == LIGHT_NORMAL_NONE) {
        return vec3(0.0);
    }
    vec2 f = unpackSnorm2x16(code);
    vec3 n = vec3(f, 1.0 - abs(f.x) - abs(f.y));
    float t = max(-n.z, 0.0);
    n.x += n.x >= 0.0 ? -t : t;
    n.y += n.y >= 0.0 ? -t : t;
    return normalize(n);
}

LightContext power_context() {
    return LightContext(vec3(0.0), vec3(0.0), false);
}

// cos(a - b) for angles a, b in [0, pi] given by cosine and sine, clamped to 1 where a < b.
float cos_sub_clamped(float sin_a, float cos_a, float sin_b, float cos_b) {
    return cos_a > cos_b ? 1.0 : cos_a * cos_b + sin_a * sin_b;
}

// sin(a - b), clamped to 0 where a < b.
float sin_sub_clamped(float sin_a, float cos_a, float sin_b, float cos_b) {
    return cos_a > cos_b ? 0.0 : sin_a * cos_b - cos_a * sin_b;
}

// The nearest a node's lights count as being, as a share of its bounding sphere's radius,
// squared: a quarter. A point inside a cluster has lights much nearer than the radius, so a clamp
// at the radius starves the cluster that holds the point; without a clamp a cluster whose centre
// is at the point would take every sample. A quarter measured best (docs/LIGHTS.md).
const float LIGHT_BVH_NEAREST_FRACTION2 = 1.0 / 16.0;

float safe_sqrt(float x) {
    return sqrt(max(x, 0.0));
}

// An upper bound on what the node's emitters send to `ctx`, up to one constant factor: power
// x the best cosine any of them can have towards the point / the squared distance (no closer
// than a quarter of the bounding sphere's radius: LIGHT_BVH_NEAREST_FRACTION2) x the best
// cosine at the receiver. Zero when no emitter of the node can face the point or lie above its
// hemisphere.
float light_bvh_importance(GpuLightBvhNode node, LightContext ctx) {
    if (!(node.power > 0.0)) {
        return 0.0;
    }
    if (!ctx.spatial) {
        return node.power;
    }
    vec3 center = 0.5 * (node.lower + node.upper);
    float radius2 = 0.25 * dot(node.upper - node.lower, node.upper - node.lower);
    vec3 to_point = ctx.point - center;
    float distance2 = dot(to_point, to_point);
    // Inside the bounding sphere every direction is possible.
    bool inside = distance2 <= radius2;
    vec3 wi = inside ? vec3(0.0) : to_point * inversesqrt(distance2);
    // The angle the bounds subtend from the point (theta_b).
    float sin2_b = inside ? 1.0 : radius2 / distance2;
    float cos_b = inside ? -1.0 : safe_sqrt(1.0 - sin2_b);
    float sin_b = safe_sqrt(1.0 - cos_b * cos_b);

    // The smallest angle between an emitter's normal and the direction to the point:
    // theta' = max(0, theta_w - theta_o - theta_b), then tested against theta_e.
    float cos_w = inside ? 1.0 : dot(node.axis, wi);
    float sin_w = safe_sqrt(1.0 - cos_w * cos_w);
    float sin_o = safe_sqrt(1.0 - node.cos_theta_o * node.cos_theta_o);
    float cos_x = cos_sub_clamped(sin_w, cos_w, sin_o, node.cos_theta_o);
    float sin_x = sin_sub_clamped(sin_w, cos_w, sin_o, node.cos_theta_o);
    float cos_emit = cos_sub_clamped(sin_x, cos_x, sin_b, cos_b);
    if (cos_emit <= node.cos_theta_e) {
        return 0.0;
    }
    // Inside the sphere every direction passed the test above; a point below the plane under
    // every light of a flat cluster (a floor's point and the lights a finger's width over the
    // floor) is still behind them all.
    if (inside && dot(node.axis, ctx.point) <= node.behind) {
        return 0.0;
    }
    float importance = node.power * cos_emit / max(distance2, LIGHT_BVH_NEAREST_FRACTION2 * radius2);
    if (ctx.normal != vec3(0.0)) {
        // A box wholly behind the surface sends it nothing (the sphere test below is looser).
        vec3 half_extent = 0.5 * (node.upper - node.lower);
        if (dot(center - ctx.point, ctx.normal) + dot(half_extent, abs(ctx.normal)) <= 0.0) {
            return 0.0;
        }
        // The best cosine at the receiver: the direction towards the node, opened by theta_b.
        float cos_i = inside ? 1.0 : dot(-wi, ctx.normal);
        float sin_i = safe_sqrt(1.0 - cos_i * cos_i);
        float cos_receive = cos_sub_clamped(sin_i, cos_i, sin_b, cos_b);
        if (cos_receive <= 0.0) {
            return 0.0;
        }
        importance *= cos_receive;
    }
    return importance > 0.0 && !isinf(importance) ? importance : 0.0;
}

bool light_bvh_is_leaf(GpuLightBvhNode node) {
    return node.children.y == LIGHT_BVH_LEAF;
}

GpuLightBvhNode light_bvh_node(uint64_t nodes_address, uint index) {
    LightBvhNodeWords words = LightBvhNodeWords(nodes_address);
    LightBvhNodeVec4s node;
    for (uint w = 0; w < 4; ++w) {
        node.w[w] = words.v[4 * index + w];
    }
    return light_bvh_node_from_words(node);
}

// The shares of two children: each one's importance over both children's; negative when
// neither can send anything. Each is its own quotient, not one minus the other: a child of
// importance 0 gets exactly 0 (on NVIDIA x / x can be 1 - 2^-24).
vec2 light_bvh_shares(GpuLightBvhNode first_child, GpuLightBvhNode second_child, LightContext ctx) {
    float first = light_bvh_importance(first_child, ctx);
    float second = light_bvh_importance(second_child, ctx);
    float total = first + second;
    return total > 0.0 ? vec2(first, second) / total : vec2(-1.0);
}

// A light, from one uniform number, descending from the root by the children's importance;
// `probability` is the product of the shares taken. Returns `count` when no light can send
// anything to the point.
uint light_bvh_sample(uint64_t nodes_address, uint count, LightContext ctx, float u, out float probability) {
    probability = 0.0;
    GpuLightBvhNode node = light_bvh_node(nodes_address, 0);
    // Whether any light can send something is the first level's question (its shares are
    // negative when neither child can); only a tree of one light asks its leaf.
    if (light_bvh_is_leaf(node) && !(light_bvh_importance(node, ctx) > 0.0)) {
        return count;
    }
    float p = 1.0;
    while (!light_bvh_is_leaf(node)) {
        GpuLightBvhNode first_child = light_bvh_node(nodes_address, node.children.x);
        GpuLightBvhNode second_child = light_bvh_node(nodes_address, node.children.y);
        vec2 shares = light_bvh_shares(first_child, second_child, ctx);
        float share = shares.x;
        if (share < 0.0) {
            return count;
        }
        bool first = u < share;
        float taken = first ? share : shares.y;
        if (!(taken > 0.0)) {
            return count;
        }
        u = clamp(first ? u / share : (u - share) / (1.0 - share), 0.0, float_below(1.0));
        p *= taken;
        node = first ? first_child : second_child;
    }
    probability = p;
    return node.children.x;
}

// The probability that light_bvh_sample chooses `light` at `ctx`: the shares the sampler
// multiplies, taken down the way from the root to the light's leaf, which each node's `split`
// gives (the leaf lies under the first child when its position is at most the split), so that
// the result is bit for bit the sampler's.
float light_bvh_probability(uint64_t nodes_address, uint64_t leaf_of_address, LightContext ctx, uint light) {
    uint position = light_bvh_node(nodes_address, LightBvhLinks(leaf_of_address).v[light]).split;
    GpuLightBvhNode node = light_bvh_node(nodes_address, 0);
    if (light_bvh_is_leaf(node) && !(light_bvh_importance(node, ctx) > 0.0)) {
        return 0.0;
    }
    float p = 1.0;
    while (!light_bvh_is_leaf(node)) {
        GpuLightBvhNode first_child = light_bvh_node(nodes_address, node.children.x);
        GpuLightBvhNode second_child = light_bvh_node(nodes_address, node.children.y);
        vec2 shares = light_bvh_shares(first_child, second_child, ctx);
        if (shares.x < 0.0) {
            return 0.0;
        }
        bool second = position > node.split;
        float taken = second ? shares.y : shares.x;
        if (!(taken > 0.0)) {
            return 0.0;
        }
        p *= taken;
        node = second ? second_child : first_child;
    }
    return p;
}

#endif
