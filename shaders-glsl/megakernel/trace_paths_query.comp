#version 460
//
// The megakernel, ray-query backend (trace_paths_compute.glsl).
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_ray_query : require

#include "trace_paths_compute.glsl"
