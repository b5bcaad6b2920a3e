#version 460
//
// The megakernel, our own traversal (trace_paths_compute.glsl, software_bvh.glsl).
#extension GL_GOOGLE_include_directive : require
#define SOFTWARE_TRACE

#include "trace_paths_compute.glsl"
