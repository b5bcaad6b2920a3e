// Shared by both connect backends: an unoccluded shadow ray adds its stored contribution to
// its pixel. A bidirectional splat (SPLAT_PIXEL set) goes to the float splat film in the
// variants that have one (splat_film.glsl), else to the fixed-point film like the rest; a
// Metropolis proposal's (MLT_RECORD set) goes to its record, which the acceptance kernel splats.
#ifndef WAVETRACE_CONNECT_GLSL
#define WAVETRACE_CONNECT_GLSL

#include "film.glsl"
#include "splat_film.glsl"
#include "mlt.glsl"

void finish_connect(PassConstants c, uint shadow, bool occluded) {
    if (!occluded) {
        vec3 contribution = Vec3s(c.shadow_contributions).v[shadow];
        uint pixel = Uints(c.shadow_pixels).v[shadow];
        if ((pixel & MLT_RECORD) != 0) {
            MltRecords(c.mlt_records).v[pixel & ~MLT_RECORD].contribution = contribution;
            return;
        }
#ifdef SPLAT_FILM_FLOAT
        if ((pixel & SPLAT_PIXEL) != 0) {
            splat_add(c.splat_film, pixel & ~SPLAT_PIXEL, contribution);
            return;
        }
#endif
        film_add(c.film, pixel & ~SPLAT_PIXEL, film_quantize(contribution));
    }
}

#endif
