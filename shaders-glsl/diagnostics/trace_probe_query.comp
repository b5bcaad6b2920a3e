#version 460
//
// Traces a list of rays with ray queries and records the closest hit of each, so tests can
// check the acceleration structures against a CPU intersector.
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "common.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    TraceProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Rays {
    ProbeRay rays[];
};
layout(buffer_reference, scalar) writeonly buffer Hits {
    ProbeHit hits[];
};

void main() {
    uint index = gl_GlobalInvocationID.x;
    if (index >= push.count) {
        return;
    }
    ProbeRay ray = Rays(push.rays).rays[index];
    rayQueryEXT query;
    rayQueryInitializeEXT(query, accelerationStructureEXT(push.top_level), gl_RayFlagsOpaqueEXT, 0xff,
                          ray.origin, ray.t_min, ray.direction, ray.t_max);
    while (rayQueryProceedEXT(query)) {
    }
    ProbeHit hit = ProbeHit(-1.0, 0, 0, 0);
    if (rayQueryGetIntersectionTypeEXT(query, true) == gl_RayQueryCommittedIntersectionTriangleEXT) {
        hit.t = rayQueryGetIntersectionTEXT(query, true);
        hit.custom_index = uint(rayQueryGetIntersectionInstanceCustomIndexEXT(query, true));
        hit.primitive = uint(rayQueryGetIntersectionPrimitiveIndexEXT(query, true));
        // A merged bottom level's geometry is the instance (src/accel).
        hit.instance = uint(rayQueryGetIntersectionInstanceIdEXT(query, true))
                       + uint(rayQueryGetIntersectionGeometryIndexEXT(query, true));
    }
    Hits(push.hits).hits[index] = hit;
}
