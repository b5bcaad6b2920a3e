#version 460
//
// Writes every field of a LayoutProbePush back as raw 32-bit words, so a test can check
// that the GLSL and Rust sides of src/shader_interface.rs put each field at the same place.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = 1) in;

layout(push_constant, scalar) uniform PushBlock {
    LayoutProbePush push;
};

layout(buffer_reference, scalar) buffer Words {
    uint w[];
};

void main() {
    Words out_words = Words(push.words);
    out_words.w[0] = push.a;
    out_words.w[1] = floatBitsToUint(push.b);
    out_words.w[2] = floatBitsToUint(push.c.x);
    out_words.w[3] = floatBitsToUint(push.c.y);
    out_words.w[4] = floatBitsToUint(push.c.z);
    out_words.w[5] = push.pad0;
    out_words.w[6] = uint(push.d);
    out_words.w[7] = uint(push.d >> 32);
    out_words.w[8] = floatBitsToUint(push.e.x);
    out_words.w[9] = floatBitsToUint(push.e.y);
    out_words.w[10] = push.f.x;
    out_words.w[11] = push.f.y;
    out_words.w[12] = push.f.z;
    out_words.w[13] = push.f.w;
}
