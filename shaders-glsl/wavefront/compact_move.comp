#version 460
//
// Compaction, second half: the i-th path above the kept-path count moves to the i-th free
// slot below it, so the kept paths fill the first slots and the new camera paths follow
// them. Only the state a path waiting for extend has is moved (its hit is stale).
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= Queues(c.queues).q.moving_paths) {
        return;
    }
    uint to = Uints(c.shade_queue).v[index];
    uint from = Uints(c.shade_keys).v[index];
    Vec3s(c.ray_origins).v[to] = Vec3s(c.ray_origins).v[from];
    Vec3s(c.ray_directions).v[to] = Vec3s(c.ray_directions).v[from];
    Vec4s(c.throughputs).v[to] = Vec4s(c.throughputs).v[from];
    Uints(c.light_normals).v[to] = Uints(c.light_normals).v[from];
    Uints(c.path_samples).v[to] = Uints(c.path_samples).v[from];
    Uints(c.path_pixels).v[to] = Uints(c.path_pixels).v[from];
    Uints(c.path_pixels).v[from] = INACTIVE_PATH;
}
