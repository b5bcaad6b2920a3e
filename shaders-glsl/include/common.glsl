// Extensions and conventions every wavetrace shader uses.
//
// Buffers are reached through device addresses carried in push constants (no descriptor
// sets for plain data), with the scalar block layout, which matches #[repr(C)] Rust structs
// without padding rules of its own. The push-constant structs come from interface.glsl,
// generated from src/shader_interface.rs.
#ifndef WAVETRACE_COMMON_GLSL
#define WAVETRACE_COMMON_GLSL

#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_scalar_block_layout : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require

#include "interface.glsl"

#endif
