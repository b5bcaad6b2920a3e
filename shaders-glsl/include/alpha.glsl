// The alpha test that traversal applies to candidate hits on non-opaque geometry (materials
// with alphaMode MASK or BLEND; every other mesh is opaque in the acceleration structure):
// MASK is a hole where alpha is below the cutoff; BLEND lets a ray through with probability
// 1 - alpha, decided by a hash of the ray and the triangle, so that both trace backends and
// both integrators see the same holes for the same ray. Alpha is base colour alpha times the
// base colour texture's, at its finest level, times COLOR_0's.
#ifndef WAVETRACE_ALPHA_GLSL
#define WAVETRACE_ALPHA_GLSL

#include "scene.glsl"
#include "textures.glsl"
#include "rng.glsl"

bool alpha_hole(PassConstants c, uint instance, uint triangle, vec2 barycentrics, vec3 origin, vec3 direction) {
    WorldTriangle w = world_triangle(c.positions, c.indices, c.instances, c.meshes, instance, triangle);
    GpuMaterial m = Materials(c.materials).v[w.mesh.material];
    if (!HAS_ALPHA || m.alpha_mode == ALPHA_OPAQUE) {
        return false;
    }
    uvec3 vertices = triangle_vertices(c.indices, w, triangle);
    vec3 weights = barycentric_weights(barycentrics);
    float alpha = material_base_color(m, finest_texture_coordinates(c, m, vertices, weights)).a;
    if (HAS_VERTEX_COLORS) {
        alpha *= interpolated_color(c.colors, vertices, weights).a;
    }
    if (m.alpha_mode == ALPHA_MASK) {
        return alpha < m.alpha_cutoff;
    }
    uint h = wt_hash(floatBitsToUint(origin.x) ^ wt_hash(floatBitsToUint(origin.y) ^ wt_hash(floatBitsToUint(origin.z))));
    h = wt_hash(h ^ floatBitsToUint(direction.x) ^ wt_hash(floatBitsToUint(direction.y) ^ floatBitsToUint(direction.z)));
    h = wt_hash(h ^ wt_hash(instance) ^ triangle);
    return float(h >> 8u) * (1.0 / 16777216.0) >= alpha;
}

#endif

// The instance of a ray query's hit (committed or candidate): one of the two is 0, the
// instance of a per-mesh top level or the geometry of the merged bottom level (src/accel). A
// macro: ray queries are not function arguments everywhere.
#define hit_instance(query, committed)                                                                        \
    (uint(rayQueryGetIntersectionInstanceIdEXT(query, committed))                                             \
     + uint(rayQueryGetIntersectionGeometryIndexEXT(query, committed)))

// Runs a ray query to its end, confirming the candidate triangles (non-opaque geometry only)
// that are not alpha holes. A macro: ray queries are not function arguments everywhere.
#define PROCEED_WITH_ALPHA(c, query, origin, direction)                                                       \
    while (rayQueryProceedEXT(query)) {                                                                       \
        if (rayQueryGetIntersectionTypeEXT(query, false) == gl_RayQueryCandidateIntersectionTriangleEXT &&    \
            !alpha_hole(c, hit_instance(query, false),                                                         \
                        uint(rayQueryGetIntersectionPrimitiveIndexEXT(query, false)),                        \
                        rayQueryGetIntersectionBarycentricsEXT(query, false), origin, direction)) {          \
            rayQueryConfirmIntersectionEXT(query);                                                           \
        }                                                                                                     \
    }
