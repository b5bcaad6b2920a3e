#version 460
//
// Camera rays for every pixel of one sample pass: box-filter jitter from the counter-based
// RNG (dimensions 0 and 1 of bounce 0), unit throughput, and every path queued for extend.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"
#include "rng.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint path = gl_GlobalInvocationID.x;
    Queues queues = Queues(c.queues);
    if (path == 0) {
        queues.q.extend_count = c.path_count;
    }
    if (path >= c.path_count) {
        return;
    }
    uint sample_index = queues.q.sample_index;
    uint x = path % c.width;
    uint y = path / c.width;
    vec2 jitter = vec2(wt_random(c.seed, path, sample_index, 0, 0), wt_random(c.seed, path, sample_index, 0, 1));
    vec2 p = vec2(x, y) + jitter;
    float sx = (2.0 * p.x / float(c.width) - 1.0) * c.tan_half_yfov * c.aspect;
    float sy = (1.0 - 2.0 * p.y / float(c.height)) * c.tan_half_yfov;
    vec3 direction = normalize(c.camera_right * sx + c.camera_up * sy + c.camera_forward);
    Vec4s(c.ray_origins).v[path] = vec4(c.camera_origin, 0.0);
    Vec4s(c.ray_directions).v[path] = vec4(direction, 0.0);
    // w = 0: no BSDF density yet, so emission seen directly counts in full.
    Vec4s(c.throughputs).v[path] = vec4(1.0, 1.0, 1.0, 0.0);
    Uints(c.extend_queue).v[path] = path;
}
