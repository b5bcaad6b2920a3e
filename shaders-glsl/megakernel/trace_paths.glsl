// The megakernel's loop, shared by its two backends: a whole path in one thread, from the
// camera ray to its last vertex, with path.glsl's shade_hit between the backend's
// trace_closest and trace_occluded. The film gets the same additions in the same order as in
// the wavefront kernels (emission, then the shadow ray's contribution, bounce by bounce).
// Returns the rays it traced (extension, shadow), which the backends add to the pass's counts.
#ifndef WAVETRACE_TRACE_PATHS_GLSL
#define WAVETRACE_TRACE_PATHS_GLSL

#include "path.glsl"

uvec2 trace_path(PassConstants c, uint path) {
    uint extension_rays = 0;
    uint shadow_rays = 0;
    uint sample_index = Queues(c.queues).q.sample_index;
    vec3 origin;
    vec3 direction;
    camera_ray(c, path, sample_index, origin, direction);
    vec4 throughput = vec4(1.0, 1.0, 1.0, 0.0);
    vec4 film = Vec4s(c.film).v[path];
    for (uint bounce = 0; bounce < c.max_depth; ++bounce) {
        HitRecord hit;
        extension_rays += 1;
        if (!trace_closest(c, origin, direction, hit)) {
            break;
        }
        vec3 emitted;
        bool has_shadow;
        ShadowRay shadow;
        bool continues =
            shade_hit(c, path, sample_index, bounce, hit, origin, direction, throughput, emitted, has_shadow, shadow);
        if (any(notEqual(emitted, vec3(0.0)))) {
            film += vec4(emitted, 0.0);
        }
        if (has_shadow) {
            shadow_rays += 1;
            if (!trace_occluded(c, shadow.origin, shadow.direction, shadow.t_max)) {
                film += vec4(shadow.contribution, 0.0);
            }
        }
        if (!continues) {
            break;
        }
    }
    Vec4s(c.film).v[path] = film;
    return uvec2(extension_rays, shadow_rays);
}

#endif
