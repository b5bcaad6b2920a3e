// The megakernel's loop, shared by its two backends: a whole path in one thread, from the
// camera ray to its last vertex, with path.glsl's shade_hit between the backend's
// trace_segment calls. The film gets the same fixed-point additions as from the wavefront
// kernels.
// Returns the rays it traced (extension, shadow), which the backends add to the pass's counts.
#ifndef WAVETRACE_TRACE_PATHS_GLSL
#define WAVETRACE_TRACE_PATHS_GLSL

#include "path.glsl"
#include "film.glsl"

// Adds to the pixel's fixed-point sums at once rather than holding them in registers until the
// path ends: on the H100 the megakernel is 1-2% faster so (docs/BENCHMARKS.md), its registers
// being what limits it. A launch traces several samples of each pixel, so other threads add to
// the same pixel: atomics, whose integer sums do not depend on their order.
void add_to_film(PassConstants c, uint pixel, vec3 radiance) {
    u64vec3 quantized = film_quantize(radiance);
    if (quantized != u64vec3(0)) {
        for (uint channel = 0; channel < 3; ++channel) {
            atomicAdd(Film(c.film).v[pixel * 3 + channel], quantized[channel]);
        }
    }
}

// The sample a launch's layer `layer` traces, or none past the render's last: a launch covers
// a fixed number of samples (megakernel.rs's `launch_samples`), the last of a render may hold
// fewer.
bool launch_sample(PassConstants c, uint layer, out uint sample_index) {
    sample_index = Queues(c.queues).q.sample_index + layer;
    uint samples = uint(Queues(c.queues).q.camera_paths / crop_pixels(c));
    return sample_index - c.first_sample < samples;
}

uvec2 trace_path(PassConstants c, uint pixel, uint sample_index) {
    uint extension_rays = 0;
    uint shadow_rays = 0;
    if (c.max_depth == 0) {
        return uvec2(0);
    }
    vec3 origin;
    vec3 direction;
    camera_ray(c, pixel, sample_index, origin, direction);
    vec4 throughput = vec4(1.0, 1.0, 1.0, 0.0);
    uint light_normal = LIGHT_NORMAL_NONE;
    uint bounce = 0;
    bool continues = true;
    bool has_shadow = false;
    ShadowRay shadow;
    // One trace a turn, a shadow ray's or the next segment's, so that the loop calls the
    // traversal from one place: on the H100, where traversal runs as shader code beside the
    // raygen's, a second call site (the shadow ray's, once a bounce) cost the megakernel 6-9%
    // on the Cornell box and 7% on ajar (docs/BENCHMARKS.md, "One traversal call site in the
    // megakernel").
    while (true) {
        HitRecord hit;
        bool found = trace_segment(c, has_shadow ? shadow.origin : origin, has_shadow ? shadow.direction : direction,
                                   has_shadow ? shadow.t_max : 1e30, has_shadow, hit);
        // What this turn adds to the pixel, added in one place: three places (emission, the
        // shadow ray's light, the environment) cost the megakernel 1-8% on the H100.
        vec3 radiance = vec3(0.0);
        bool ends = false;
        if (has_shadow) {
            shadow_rays += 1;
            has_shadow = false;
            radiance = found ? vec3(0.0) : shadow.contribution;
            ends = !continues;
        } else {
            extension_rays += 1;
            if (!found) {
                radiance = environment_seen(c, direction, throughput);
                ends = true;
            } else {
                continues = shade_hit(c, pixel, sample_index, bounce, hit, origin, direction, throughput,
                                      light_normal, radiance, has_shadow, shadow);
                bounce += 1;
                ends = !continues && !has_shadow;
            }
        }
        add_to_film(c, pixel, radiance);
        if (ends) {
            break;
        }
    }
    return uvec2(extension_rays, shadow_rays);
}

#endif
