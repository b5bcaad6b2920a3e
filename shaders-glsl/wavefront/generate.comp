#version 460
//
// Camera rays for every pixel of one sample pass (path.glsl's camera_ray), unit throughput,
// and every path queued for extend.
#extension GL_GOOGLE_include_directive : require

#include "path.glsl"

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
    vec3 origin;
    vec3 direction;
    camera_ray(c, path, sample_index, origin, direction);
    Vec4s(c.ray_origins).v[path] = vec4(origin, 0.0);
    Vec4s(c.ray_directions).v[path] = vec4(direction, 0.0);
    // w = 0: no BSDF density yet, so emission seen directly counts in full.
    Vec4s(c.throughputs).v[path] = vec4(1.0, 1.0, 1.0, 0.0);
    Uints(c.extend_queue).v[path] = path;
}
