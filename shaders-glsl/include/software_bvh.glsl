// Our own traversal of a software hierarchy (`trace::software_bvh`, which documents the
// layout): Aila and Laine's while-while loop, in which a lane that reaches a leaf keeps
// descending until every lane of its subgroup has one, so that the subgroup tests triangles
// together rather than a lane at a time. The CPU twin (`SoftwareBvh::intersect`) has the same
// arithmetic and finds the same nearest hits.
#ifndef WAVETRACE_SOFTWARE_BVH_GLSL
#define WAVETRACE_SOFTWARE_BVH_GLSL

#extension GL_KHR_shader_subgroup_vote : require

#include "common.glsl"

layout(buffer_reference, scalar) readonly restrict buffer SoftwareNodes { vec4 v[]; };
layout(buffer_reference, scalar) readonly restrict buffer SoftwareTriangles { vec4 v[]; };

#ifdef SOFTWARE_ALPHA_HOLES
// Defined by the includer: whether a hit whose first and second vertices weigh u and v is a
// hole the ray passes through.
bool software_alpha_hole(int slot, float u, float v, vec3 origin, vec3 direction);
#endif

// The watertight test's frame for a ray (Woop, Benthin and Wald 2013; `ShearedRay` in
// trace::software_bvh, line for line): rows that take a point less the ray's origin to the frame
// where the ray runs along +z, each with a 1 (or 1 / d.z) and at most one other term.
mat3 sheared_rows(vec3 direction) {
    vec3 a = abs(direction);
    int kz = a.x > a.y ? (a.x > a.z ? 0 : 2) : (a.y > a.z ? 1 : 2);
    int kx = (kz + 1) % 3;
    int ky = (kz + 2) % 3;
    if (direction[kz] < 0.0) {
        int k = kx;
        kx = ky;
        ky = k;
    }
    vec3 ex = vec3(equal(ivec3(0, 1, 2), ivec3(kx)));
    vec3 ey = vec3(equal(ivec3(0, 1, 2), ivec3(ky)));
    vec3 ez = vec3(equal(ivec3(0, 1, 2), ivec3(kz)));
    float sx = direction[kx] / direction[kz];
    float sy = direction[ky] / direction[kz];
    float sz = 1.0 / direction[kz];
    return mat3(ex - sx * ez, ey - sy * ez, sz * ez);
}

// A vertex in the ray's frame.
vec3 sheared(vec4 vertex, vec3 origin, mat3 rows) {
    vec3 p = vertex.xyz - origin;
    return vec3(dot(p, rows[0]), dot(p, rows[1]), dot(p, rows[2]));
}

// Above every node index; the stack's bottom.
const int SOFTWARE_STACK_BOTTOM = 0x7fffffff;

float software_max3(vec3 v) {
    return max(max(v.x, v.y), v.z);
}

float software_min3(vec3 v) {
    return min(min(v.x, v.y), v.z);
}

// The slot of the nearest triangle hit in (t_min, t), or with `any_hit` of the first found, and
// its distance in `t`; -1 and `t` unchanged where none is.
int software_trace(uint64_t nodes_address, uint64_t triangles_address, vec3 origin, float t_min, vec3 direction,
                   inout float t, bool any_hit) {
    SoftwareNodes nodes = SoftwareNodes(nodes_address);
    SoftwareTriangles triangles = SoftwareTriangles(triangles_address);
    // A zero component would give 0 x inf = NaN in the slab test; a tiny one of its sign does not.
    uvec3 sign_bits = floatBitsToUint(direction) & 0x80000000u;
    vec3 tiny = uintBitsToFloat(sign_bits | floatBitsToUint(1e-30));
    vec3 inverse = 1.0 / mix(direction, tiny, lessThanEqual(abs(direction), vec3(1e-30)));
    mat3 rows = sheared_rows(direction);

    int stack[SOFTWARE_BVH_MAX_DEPTH + 1];
    int top = 0;
    stack[0] = SOFTWARE_STACK_BOTTOM;
    int node = 0;
    // A leaf found and not yet tested (negative), else 0.
    int leaf = 0;
    int found = -1;
    while (node != SOFTWARE_STACK_BOTTOM) {
        while (node >= 0 && node != SOFTWARE_STACK_BOTTOM) {
            vec4 xy0 = nodes.v[4 * node];
            vec4 xy1 = nodes.v[4 * node + 1];
            vec4 z01 = nodes.v[4 * node + 2];
            ivec2 children = floatBitsToInt(nodes.v[4 * node + 3].xy);
            // Differences, then products, each rounded once, and the far distance scaled up by
            // their error bound: rounding never culls a box a ray touches (Ize 2013), which the
            // watertight triangle test needs of the traversal too.
            vec3 a0 = (vec3(xy0.x, xy0.z, z01.x) - origin) * inverse;
            vec3 b0 = (vec3(xy0.y, xy0.w, z01.y) - origin) * inverse;
            vec3 a1 = (vec3(xy1.x, xy1.z, z01.z) - origin) * inverse;
            vec3 b1 = (vec3(xy1.y, xy1.w, z01.w) - origin) * inverse;
            float near0 = max(software_max3(min(a0, b0)), t_min);
            float far0 = min(software_min3(max(a0, b0)) * SOFTWARE_CONSERVATIVE_FAR, t);
            float near1 = max(software_max3(min(a1, b1)), t_min);
            float far1 = min(software_min3(max(a1, b1)) * SOFTWARE_CONSERVATIVE_FAR, t);
            bool enter0 = near0 <= far0;
            bool enter1 = near1 <= far1;
            if (!enter0 && !enter1) {
                node = stack[top--];
            } else {
                node = enter0 ? children.x : children.y;
                if (enter0 && enter1) {
                    int later = children.y;
                    if (near1 < near0) {
                        node = children.y;
                        later = children.x;
                    }
                    stack[++top] = later;
                }
            }
            if (node < 0 && leaf >= 0) {
                leaf = node;
                node = stack[top--];
            }
            if (!subgroupAny(leaf >= 0)) {
                break;
            }
        }
        while (leaf < 0) {
            int first = (~leaf) >> SOFTWARE_LEAF_COUNT_BITS;
            int end = first + ((~leaf) & int((1u << SOFTWARE_LEAF_COUNT_BITS) - 1u)) + 1;
            for (int slot = first; slot < end; ++slot) {
                vec3 a = sheared(triangles.v[3 * slot], origin, rows);
                vec3 b = sheared(triangles.v[3 * slot + 1], origin, rows);
                vec3 c = sheared(triangles.v[3 * slot + 2], origin, rows);
                // Uncontracted, so that an edge's function in one triangle is exactly minus its
                // function in the next, and a ray through the edge is inside one of them.
                precise float edge_a = c.x * b.y - c.y * b.x;
                precise float edge_b = a.x * c.y - a.y * c.x;
                precise float edge_c = b.x * a.y - b.y * a.x;
                if ((edge_a < 0.0 || edge_b < 0.0 || edge_c < 0.0) && (edge_a > 0.0 || edge_b > 0.0 || edge_c > 0.0)) {
                    continue;
                }
                float determinant = edge_a + edge_b + edge_c;
                if (determinant == 0.0) {
                    continue;
                }
                float hit_t = (edge_a * a.z + edge_b * b.z + edge_c * c.z) / determinant;
                if (hit_t > t_min && hit_t < t) {
                    float u = edge_a / determinant;
                    float v = edge_b / determinant;
#ifdef SOFTWARE_ALPHA_HOLES
                    if (software_alpha_hole(slot, u, v, origin, direction)) {
                        continue;
                    }
#endif
                    t = hit_t;
                    found = slot;
                    if (any_hit) {
                        node = SOFTWARE_STACK_BOTTOM;
                        break;
                    }
                }
            }
            leaf = node;
            if (node < 0) {
                node = stack[top--];
            }
        }
    }
    return found;
}

#endif
