#version 460
//
// Extend, ray-query backend (extend_compute.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "extend_compute.glsl"
