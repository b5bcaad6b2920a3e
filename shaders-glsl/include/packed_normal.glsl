// Unit vectors in 30 bits, for values that ride beside flags in a 32-bit word (a light
// vertex's coat normal, bdpt.glsl): octahedral (Meyer et al. 2010), PACKED_NORMAL_STEPS an
// axis, within 0.1 milliradian. The steps are even, so that the axes, a coat's normal where no
// normal map tilts the shading normal, come back exactly. The CPU twin is
// src/integrator/bdpt/packed_normal.rs.
#ifndef WAVETRACE_PACKED_NORMAL_GLSL
#define WAVETRACE_PACKED_NORMAL_GLSL

#include "common.glsl"

float sign_not_zero(float v) {
    return v >= 0.0 ? 1.0 : -1.0;
}

uint pack_unit_vector(vec3 n) {
    vec2 p = n.xy / (abs(n.x) + abs(n.y) + abs(n.z));
    if (n.z < 0.0) {
        p = (1.0 - abs(p.yx)) * vec2(sign_not_zero(p.x), sign_not_zero(p.y));
    }
    uvec2 q = uvec2(round(clamp(p * 0.5 + 0.5, 0.0, 1.0) * PACKED_NORMAL_STEPS));
    return q.x | (q.y << 15);
}

vec3 unpack_unit_vector(uint bits) {
    vec2 p = vec2(bits & 0x7FFFu, (bits >> 15) & 0x7FFFu) / PACKED_NORMAL_STEPS * 2.0 - 1.0;
    vec3 n = vec3(p, 1.0 - abs(p.x) - abs(p.y));
    float t = max(-n.z, 0.0);
    n.xy -= t * vec2(sign_not_zero(n.x), sign_not_zero(n.y));
    return normalize(n);
}

#endif
