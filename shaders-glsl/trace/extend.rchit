#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require

#include "common.glsl"

layout(location = 0) rayPayloadInEXT HitRecord payload;

void main() {
    // One of the two is 0: the instance of a per-mesh top level, or the geometry of the merged
    // bottom level (src/accel).
    payload = HitRecord(gl_HitTEXT, uint(gl_InstanceID) + uint(gl_GeometryIndexEXT), uint(gl_PrimitiveID), 0);
}
