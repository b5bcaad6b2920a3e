// The float splat film of bidirectional path tracing (`--splat-film float`) and of Metropolis
// light transport: per pixel three 64-bit float sums that light vertices seen by the camera
// (or the chains' points) add to from anywhere in the image, with float atomics where the
// device has 64-bit ones (SPLAT_FLOAT_ATOMIC) and a compare-and-swap loop where it does not.
// 64 bits because a pixel may sum millions of splats of one size: a 32-bit sum rounds each
// addition to its own precision and stops growing at a power of two, one channel at a time,
// which turned an emitter's colour 2.5 : 1 : 1.6 into 2 : 1 : 1 (docs/BDPT.md). Unlike the
// fixed-point film (film.glsl) its sums depend on the order of the additions, so images are
// not bit-identical from run to run; the splat-resolve kernel adds it into the fixed-point
// film at the end.
#ifndef WAVETRACE_SPLAT_FILM_GLSL
#define WAVETRACE_SPLAT_FILM_GLSL

#if defined(SPLAT_FLOAT_ATOMIC) || defined(SPLAT_FLOAT_CAS)
#define SPLAT_FILM_FLOAT
#endif

#ifdef SPLAT_FLOAT_ATOMIC
#extension GL_EXT_shader_atomic_float : require
#endif
#extension GL_EXT_shader_atomic_int64 : require

layout(buffer_reference, scalar) buffer SplatFilm { double v[]; };
layout(buffer_reference, scalar) buffer SplatFilmBits { uint64_t v[]; };

// What film_quantize keeps: nothing negative or NaN, nothing above FILM_MAX.
vec3 splat_clamp(vec3 value) {
    return mix(vec3(0.0), min(value, vec3(FILM_MAX)), greaterThan(value, vec3(0.0)));
}

// A pixel's three sums as floats.
vec3 splat_sum(uint64_t film, uint pixel) {
    SplatFilm splats = SplatFilm(film);
    return vec3(dvec3(splats.v[3 * pixel], splats.v[3 * pixel + 1], splats.v[3 * pixel + 2]));
}

#ifdef SPLAT_FILM_FLOAT
void splat_add(uint64_t film, uint pixel, vec3 value) {
    vec3 clamped = splat_clamp(value);
    for (uint channel = 0; channel < 3; ++channel) {
        if (clamped[channel] > 0.0) {
            uint index = pixel * 3 + channel;
            double addend = double(clamped[channel]);
#ifdef SPLAT_FLOAT_ATOMIC
            atomicAdd(SplatFilm(film).v[index], addend);
#else
            uint64_t seen = SplatFilmBits(film).v[index];
            for (;;) {
                uint64_t expected = seen;
                seen = atomicCompSwap(SplatFilmBits(film).v[index], expected,
                                      doubleBitsToUint64(uint64BitsToDouble(expected) + addend));
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
