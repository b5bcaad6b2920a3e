// The megakernel's loop, shared by its two backends: a whole path in one thread, from the
// camera ray to its last vertex, with path.glsl's shade_hit between the backend's
// trace_closest and trace_occluded. The film gets the same fixed-point additions as from the
// wavefront kernels.
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
    vec3 origin;
    vec3 direction;
    camera_ray(c, pixel, sample_index, origin, direction);
    vec4 throughput = vec4(1.0, 1.0, 1.0, 0.0);
    uint light_normal = LIGHT_NORMAL_NONE;
    for (uint bounce = 0; bounce < c.max_depth; ++bounce) {
        HitRecord hit;
        extension_rays += 1;
        if (!trace_closest(c, origin, direction, hit)) {
            add_to_film(c, pixel, environment_seen(c, direction, throughput));
            break;
        }
        vec3 emitted;
        bool has_shadow;
        ShadowRay shadow;
        bool continues =
            shade_hit(c, pixel, sample_index, bounce, hit, origin, direction, throughput, light_normal, emitted,
                      has_shadow, shadow);
        add_to_film(c, pixel, emitted);
        if (has_shadow) {
            shadow_rays += 1;
            if (!trace_occluded(c, shadow.origin, shadow.direction, shadow.t_max)) {
                add_to_film(c, pixel, shadow.contribution);
            }
        }
        if (!continues) {
            break;
        }
    }
    return uvec2(extension_rays, shadow_rays);
}

#endif
