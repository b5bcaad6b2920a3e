// The film: per pixel three 64-bit fixed-point sums (2^-24 units). Integer addition is
// associative, so the image does not depend on the order in which paths finish: any
// schedule, any number of path slots and either integrator give the same bits, though
// samples of one pixel may now be in flight at once and add with atomics.
#ifndef WAVETRACE_FILM_GLSL
#define WAVETRACE_FILM_GLSL

#extension GL_EXT_shader_atomic_int64 : require

layout(buffer_reference, scalar) buffer Film { uint64_t v[]; };

// FILM_SCALE and FILM_MAX (the clamp that keeps 2^24 samples from overflowing a sum) come
// from interface.glsl.

// NaN, negative and zero contributions add nothing.
u64vec3 film_quantize(vec3 value) {
    vec3 clamped = mix(vec3(0.0), min(value, vec3(FILM_MAX)), greaterThan(value, vec3(0.0)));
    return u64vec3(round(clamped * FILM_SCALE));
}

void film_add(uint64_t film, uint pixel, u64vec3 sum) {
    for (uint channel = 0; channel < 3; ++channel) {
        if (sum[channel] != uint64_t(0)) {
            atomicAdd(Film(film).v[pixel * 3 + channel], sum[channel]);
        }
    }
}

#endif
