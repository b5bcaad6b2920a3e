#version 460
//
// After the last batch with the float splat film: adds each pixel's splat sums into the
// fixed-point film, which the renderer reads; Metropolis light transport's scaled by what its
// iterations make of it (MltControl::resolve_scale).
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"
#include "film.glsl"
#include "splat_film.glsl"
#include "mlt.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint pixel = gl_GlobalInvocationID.x;
    if (pixel >= c.width * c.height) {
        return;
    }
    vec3 sum = splat_sum(c.splat_film, pixel);
    if (metropolis(c)) {
        sum *= mlt_control(c).resolve_scale;
    }
    film_add(c.film, pixel, film_quantize(sum));
    // Emptied once added, so that a progressive render's next pass adds only its own splats.
    SplatFilm splats = SplatFilm(c.splat_film);
    splats.v[3 * pixel] = 0.0lf;
    splats.v[3 * pixel + 1] = 0.0lf;
    splats.v[3 * pixel + 2] = 0.0lf;
}
