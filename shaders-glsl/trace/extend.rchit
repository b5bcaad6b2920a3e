#version 460
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_tracing : require

#include "common.glsl"

layout(location = 0) rayPayloadInEXT HitRecord payload;

void main() {
    payload = HitRecord(gl_HitTEXT, uint(gl_InstanceID), uint(gl_PrimitiveID), uint(gl_InstanceCustomIndexEXT));
}
