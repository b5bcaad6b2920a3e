// Shared by both connect backends: an unoccluded shadow ray adds its stored contribution to
// its pixel.
#ifndef WAVETRACE_CONNECT_GLSL
#define WAVETRACE_CONNECT_GLSL

#include "film.glsl"

void finish_connect(PassConstants c, uint shadow, bool occluded) {
    if (!occluded) {
        vec3 contribution = Vec3s(c.shadow_contributions).v[shadow];
        film_add(c.film, Uints(c.shadow_pixels).v[shadow], film_quantize(contribution));
    }
}

#endif
