// The float splat film of bidirectional path tracing (`--splat-film float`): per pixel three
// float sums that light vertices seen by the camera add to from anywhere in the image, with
// float atomics where the device has them (SPLAT_FLOAT_ATOMIC) and a compare-and-swap loop
// where it does not. Unlike the fixed-point film (film.glsl) its sums depend on the order of
// the additions, so images are not bit-identical from run to run; the splat-resolve kernel
// adds it into the fixed-point film at the end.
#ifndef WAVETRACE_SPLAT_FILM_GLSL
#define WAVETRACE_SPLAT_FILM_GLSL

#if defined(SPLAT_FLOAT_ATOMIC) || defined(SPLAT_FLOAT_CAS)
#define SPLAT_FILM_FLOAT
#endif

#ifdef SPLAT_FLOAT_ATOMIC
#extension GL_EXT_shader_atomic_float : require
#endif

layout(buffer_reference, scalar) buffer SplatFilm { float v[]; };
layout(buffer_reference, scalar) buffer SplatFilmBits { uint v[]; };

// What film_quantize keeps: nothing negative or NaN, nothing above FILM_MAX.
vec3 splat_clamp(vec3 value) {
    return mix(vec3(0.0), min(value, vec3(FILM_MAX)), greaterThan(value, vec3(0.0)));
}

#ifdef SPLAT_FILM_FLOAT
void splat_add(uint64_t film, uint pixel, vec3 value) {
    vec3 clamped = splat_clamp(value);
    for (uint channel = 0; channel < 3; ++channel) {
        if (clamped[channel] > 0.0) {
            uint index = pixel * 3 + channel;
#ifdef SPLAT_FLOAT_ATOMIC
            atomicAdd(SplatFilm(film).v[index], clamped[channel]);
#else
            uint seen = SplatFilmBits(film).v[index];
            for (;;) {
                uint expected = seen;
                seen = atomicCompSwap(SplatFilmBits(film).v[index], expected,
                                      floatBitsToUint(uintBitsToFloat(expected) + clamped[channel]));
                if (seen == expected) {
                    break;
                }
            }
#endif
        }
    }
}
#endif

#endif
