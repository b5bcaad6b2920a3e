#version 460
//
// Light BVH build, step 1: one leaf per light (an emissive triangle, or a punctual light
// after the triangles), with its bounds, normal cone and power, and its sort key: the top
// LIGHT_BVH_KEY_BITS of a Morton code of its centre, under the bucket of its normal's
// dominant direction when `direction_bits` asks for it (so that the top of the tree
// separates lights that face different ways before it separates nearby ones). Lights without power get a zero leaf,
// which nothing ever chooses and which the bounds of its ancestors ignore. Each workgroup
// also counts its keys' first digit for the radix sort (RadixSort::record_counted).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "dispatch.glsl"
#include "scene.glsl"
#include "light_bvh_words.glsl"

layout(local_size_x = LIGHT_BVH_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    LightBvhPush push;
};

layout(buffer_reference, scalar) readonly buffer LightMap { GpuLightEntry v[]; };
layout(buffer_reference, scalar) readonly buffer PunctualTable { GpuPunctualLight v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) writeonly buffer NodeWords { vec4 v[]; };
layout(buffer_reference, scalar) buffer Words { uint v[]; };

// Spreads the low 10 bits of x to every third bit.
uint spread_bits(uint x) {
    x &= 0x3ffu;
    x = (x | (x << 16)) & 0x030000ffu;
    x = (x | (x << 8)) & 0x0300f00fu;
    x = (x | (x << 4)) & 0x030c30c3u;
    x = (x | (x << 2)) & 0x09249249u;
    return x;
}

uint morton(vec3 cell) {
    uvec3 q = uvec3(clamp(cell, vec3(0.0), vec3(1023.0)));
    return (spread_bits(q.x) << 2) | (spread_bits(q.y) << 1) | spread_bits(q.z);
}

// 0..5 for the signed axis a normal is closest to, 6 for lights without one.
uint direction_bucket(GpuLightBvhNode leaf) {
    if (leaf.cos_theta_o < 1.0) {
        return 6;
    }
    vec3 a = abs(leaf.axis);
    uint axis = a.x >= a.y && a.x >= a.z ? 0 : (a.y >= a.z ? 1 : 2);
    return 2 * axis + (leaf.axis[axis] < 0.0 ? 1 : 0);
}

bool finite3(vec3 v) {
    return !any(isnan(v)) && !any(isinf(v));
}

GpuLightBvhNode light_leaf(uint light) {
    GpuLightBvhNode leaf;
    leaf.children = uvec2(light, LIGHT_BVH_LEAF);
    leaf.split = 0;
    leaf.cos_theta_o = 1.0;
    leaf.cos_theta_e = 0.0;
    leaf.axis = vec3(0.0, 0.0, 1.0);
    if (light < push.triangle_count) {
        GpuLightEntry entry = LightMap(push.map).v[light];
        WorldTriangle t = light_triangle(push.positions, push.indices, push.instances, entry);
        vec3 front = cross(t.p1 - t.p0, t.p2 - t.p0);
        float twice_area = length(front);
        leaf.lower = min(t.p0, min(t.p1, t.p2));
        leaf.upper = max(t.p0, max(t.p1, t.p2));
        leaf.axis = (t.instance.flips_winding != 0 ? -front : front) / twice_area;
        leaf.power = luminance(Materials(push.materials).v[entry.material].emission) * 0.5 * twice_area;
    } else {
        GpuPunctualLight p = PunctualTable(push.punctual_lights).v[light - push.triangle_count];
        leaf.lower = p.position;
        leaf.upper = p.position;
        // Lights at infinity are chosen beside the tree: their leaf stays dark.
        leaf.power = p.kind == PUNCTUAL_DIRECTIONAL ? 0.0 : luminance(p.intensity);
        if (p.kind == PUNCTUAL_SPOT) {
            // Full intensity inside the inner cone, fading out to the outer one.
            leaf.axis = p.direction;
            leaf.cos_theta_o = p.cos_inner;
            float spread = max(acos(clamp(p.cos_outer, -1.0, 1.0)) - acos(clamp(p.cos_inner, -1.0, 1.0)), 0.0);
            leaf.cos_theta_e = min(cos(spread), LIGHT_BVH_MAX_COS_SPREAD);
        } else {
            leaf.cos_theta_o = -1.0;
        }
    }
    bool usable = leaf.power > 0.0 && !isinf(leaf.power) && finite3(leaf.lower) && finite3(leaf.upper)
                  && finite3(leaf.axis);
    if (!usable) {
        leaf.power = 0.0;
        leaf.lower = push.grid_lower;
        leaf.upper = push.grid_lower;
        leaf.axis = vec3(0.0, 0.0, 1.0);
        leaf.cos_theta_o = 1.0;
        leaf.cos_theta_e = 0.0;
    }
    leaf.behind = light_bvh_behind(leaf);
    return leaf;
}

// The workgroup's count of each value of its keys' first digit (a thread a value:
// LIGHT_BVH_GROUP == RADIX_BUCKETS, which bvh/mod.rs asserts).
shared uint first_digits[RADIX_BUCKETS];

// Writes light's leaf, key and value, and counts the key's first digit in `first_digits`.
void write_leaf(uint light) {
    GpuLightBvhNode leaf = light_leaf(light);
    vec3 cell = (0.5 * (leaf.lower + leaf.upper) - push.grid_lower) * push.grid_scale;
    uint key = morton(cell);
    if (push.direction_bits != 0) {
        key = (direction_bucket(leaf) << 27) | (key >> 3);
    }
    key >>= 30 - LIGHT_BVH_KEY_BITS;
    LightBvhNodeVec4s words = light_bvh_node_words(leaf);
    for (uint w = 0; w < 4; ++w) {
        NodeWords(push.leaves).v[4 * light + w] = words.w[w];
    }
    Words(push.keys).v[light] = key;
    Words(push.values).v[light] = light;
    atomicAdd(first_digits[key & (RADIX_BUCKETS - 1)], 1u);
}

void main() {
    uint group = flat_workgroup_index(gl_NumWorkGroups.x);
    uint thread = gl_LocalInvocationID.x;
    uint light = group * LIGHT_BVH_GROUP + thread;
    // The radix sort's first digit is counted here, which saves the sort's own count dispatch;
    // the later digits' tables, which its scatters count into, must start empty.
    Words counts = Words(push.first_digit_counts);
    uint table_words = (push.count + RADIX_TILE - 1) / RADIX_TILE * RADIX_BUCKETS;
    uint threads = (push.count + LIGHT_BVH_GROUP - 1) / LIGHT_BVH_GROUP * LIGHT_BVH_GROUP;
    for (uint w = light; w < push.clear_words; w += threads) {
        counts.v[table_words + w] = 0;
    }
    first_digits[thread] = 0;
    barrier();
    if (light < push.count) {
        write_leaf(light);
    }
    barrier();
    // A workgroup's lights lie in one tile of the sort (RADIX_TILE is a multiple of the group).
    uint counted = first_digits[thread];
    if (counted != 0) {
        atomicAdd(counts.v[group * LIGHT_BVH_GROUP / RADIX_TILE * RADIX_BUCKETS + thread], counted);
    }
}
