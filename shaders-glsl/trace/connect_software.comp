#version 460
// variant: fixed
// variant: float_atomic SPLAT_FLOAT_ATOMIC
// variant: float_cas SPLAT_FLOAT_CAS
//
// Connect, our own traversal (connect_compute.glsl, software_bvh.glsl).
#extension GL_GOOGLE_include_directive : require
#define SOFTWARE_TRACE

#include "connect_compute.glsl"
