#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require

#include "common.glsl"

layout(location = 0) rayPayloadInEXT ProbeHit payload;

void main() {
    // A merged bottom level's geometry is the instance (src/accel).
    payload = ProbeHit(gl_HitTEXT, uint(gl_InstanceCustomIndexEXT), uint(gl_PrimitiveID),
                       uint(gl_InstanceID) + uint(gl_GeometryIndexEXT));
}
