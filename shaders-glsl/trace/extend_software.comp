#version 460
//
// Extend, our own traversal (extend_compute.glsl, software_bvh.glsl).
#extension GL_GOOGLE_include_directive : require
#define SOFTWARE_TRACE

#include "extend_compute.glsl"
