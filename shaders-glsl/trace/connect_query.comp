#version 460
// variant: fixed
// variant: float_atomic SPLAT_FLOAT_ATOMIC
// variant: float_cas SPLAT_FLOAT_CAS
//
// Connect, ray-query backend (connect_compute.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "connect_compute.glsl"
