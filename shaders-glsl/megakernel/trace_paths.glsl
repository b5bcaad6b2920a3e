// The megakernel's loop, shared by its two backends: a whole path in one thread, from the
// camera ray to its last vertex, with path.glsl's shade_hit between the backend's
// trace_closest and trace_occluded. The film gets the same fixed-point additions as from the
// wavefront kernels, summed in registers (integer sums do not depend on order).
// Returns the rays it traced (extension, shadow), which the backends add to the pass's counts.
#ifndef WAVETRACE_TRACE_PATHS_GLSL
#define WAVETRACE_TRACE_PATHS_GLSL

#include "path.glsl"
#include "film.glsl"

uvec2 trace_path(PassConstants c, uint pixel) {
    uint extension_rays = 0;
    uint shadow_rays = 0;
    uint sample_index = Queues(c.queues).q.sample_index;
    vec3 origin;
    vec3 direction;
    camera_ray(c, pixel, sample_index, origin, direction);
    vec4 throughput = vec4(1.0, 1.0, 1.0, 0.0);
    uint light_normal = LIGHT_NORMAL_NONE;
    u64vec3 film = u64vec3(0);
    for (uint bounce = 0; bounce < c.max_depth; ++bounce) {
        HitRecord hit;
        extension_rays += 1;
        if (!trace_closest(c, origin, direction, hit)) {
            film += film_quantize(environment_seen(c, direction, throughput));
            break;
        }
        vec3 emitted;
        bool has_shadow;
        ShadowRay shadow;
        bool continues =
            shade_hit(c, pixel, sample_index, bounce, hit, origin, direction, throughput, light_normal, emitted,
                      has_shadow, shadow);
        film += film_quantize(emitted);
        if (has_shadow) {
            shadow_rays += 1;
            if (!trace_occluded(c, shadow.origin, shadow.direction, shadow.t_max)) {
                film += film_quantize(shadow.contribution);
            }
        }
        if (!continues) {
            break;
        }
    }
    // One path per pixel per pass: no other thread adds to this pixel now.
    for (uint channel = 0; channel < 3; ++channel) {
        Film(c.film).v[pixel * 3 + channel] += film[channel];
    }
    return uvec2(extension_rays, shadow_rays);
}

#endif
