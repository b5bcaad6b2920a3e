// A compute kernel's two traces, in whichever compute backend it is compiled for: ray queries
// through the driver's acceleration structures, or with SOFTWARE_TRACE our own traversal of the
// software hierarchy (software_bvh.glsl). Either way non-opaque triangles go through the alpha
// test (alpha.glsl) with the same ray and barycentrics, so both see the same holes.
//
//   trace_closest: the nearest hit in (0, 1e30), false and a HitRecord of t -1 where none is;
//   trace_occluded: whether anything lies in (0, t_max).
#ifndef WAVETRACE_TRACE_RAYS_GLSL
#define WAVETRACE_TRACE_RAYS_GLSL

#include "wavefront.glsl"
#include "alpha.glsl"

#ifdef SOFTWARE_TRACE

#define SOFTWARE_ALPHA_HOLES
#include "software_bvh.glsl"

layout(buffer_reference, scalar) readonly buffer SoftwareIds { uvec2 v[]; };

// The slot's (instance, triangle), less the flag that its material may have holes.
uvec2 software_hit_ids(PassConstants c, int slot) {
    uvec2 ids = SoftwareIds(c.software_ids).v[slot];
    return uvec2(ids.x & ~SOFTWARE_MAY_HAVE_HOLES, ids.y);
}

bool software_alpha_hole(int slot, float u, float v, vec3 origin, vec3 direction) {
    if (!HAS_ALPHA) {
        return false;
    }
    PassConstants c = constants();
    if ((SoftwareIds(c.software_ids).v[slot].x & SOFTWARE_MAY_HAVE_HOLES) == 0) {
        return false;
    }
    uvec2 ids = software_hit_ids(c, slot);
    // u and v weigh the first and second vertex; Vulkan's barycentrics weigh the second and
    // third.
    return alpha_hole(c, ids.x, ids.y, vec2(v, 1.0 - u - v), origin, direction);
}

// Either trace in one call: a subgroup whose lanes trace both kinds runs one traversal loop
// together rather than one kind's after the other's (the megakernel's case).
bool trace_closest_or_occluded(PassConstants c, vec3 origin, vec3 direction, float t_max, bool occlusion,
                               out HitRecord hit) {
    float t = t_max;
    int slot = software_trace(c.software_nodes, c.software_triangles, origin, 0.0, direction, t, occlusion);
    hit = HitRecord(-1.0, 0, 0, 0);
    if (slot < 0) {
        return false;
    }
    if (!occlusion) {
        uvec2 ids = software_hit_ids(c, slot);
        hit = HitRecord(t, ids.x, ids.y, 0);
    }
    return true;
}

bool trace_closest(PassConstants c, vec3 origin, vec3 direction, out HitRecord hit) {
    return trace_closest_or_occluded(c, origin, direction, 1e30, false, hit);
}

bool trace_occluded(PassConstants c, vec3 origin, vec3 direction, float t_max) {
    HitRecord unused;
    return trace_closest_or_occluded(c, origin, direction, t_max, true, unused);
}

#else

bool trace_closest(PassConstants c, vec3 origin, vec3 direction, out HitRecord hit) {
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level), gl_RayFlagsNoneEXT, 0xff, origin, 0.0,
                          direction, 1e30);
    PROCEED_WITH_ALPHA(c, query, origin, direction)
    hit = HitRecord(-1.0, 0, 0, 0);
    // The committed-intersection getters are undefined without a hit (lavapipe faults).
    if (rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionTriangleEXT) {
        return false;
    }
    hit = HitRecord(rayQueryGetIntersectionTEXT(query, true), hit_instance(query, true),
                    uint(rayQueryGetIntersectionPrimitiveIndexEXT(query, true)), 0);
    return true;
}

bool trace_occluded(PassConstants c, vec3 origin, vec3 direction, float t_max) {
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(c.top_level),
                          gl_RayFlagsTerminateOnFirstHitEXT, 0xff, origin, 0.0, direction, t_max);
    PROCEED_WITH_ALPHA(c, query, origin, direction)
    return rayQueryGetIntersectionTypeEXT(query, true) != gl_RayQueryCommittedIntersectionNoneEXT;
}

#endif

#endif
