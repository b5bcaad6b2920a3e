#version 460
//
// Shade every path queued with a hit (path.glsl's shade_hit): emission to the film, the
// light sample's shadow ray queued for connect, the continuation queued for extend.
#extension GL_GOOGLE_include_directive : require

#include "path.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= Queues(c.queues).q.shade_count) {
        return;
    }
    uint path = Uints(c.shade_queue).v[index];
    HitRecord hit = Hits(c.hits).v[path];
    vec3 origin = Vec4s(c.ray_origins).v[path].xyz;
    vec3 direction = Vec4s(c.ray_directions).v[path].xyz;
    vec4 throughput = Vec4s(c.throughputs).v[path];
    vec3 emitted;
    bool has_shadow;
    ShadowRay shadow;
    uint sample_index = Queues(c.queues).q.sample_index;
    bool continues =
        shade_hit(c, path, sample_index, push.bounce, hit, origin, direction, throughput, emitted, has_shadow, shadow);
    if (any(notEqual(emitted, vec3(0.0)))) {
        Vec4s film = Vec4s(c.film);
        // One path per pixel per pass: no other thread touches this pixel now.
        film.v[path] += vec4(emitted, 0.0);
    }
    if (has_shadow) {
        Vec4s(c.shadow_origins).v[path] = vec4(shadow.origin, shadow.t_max);
        Vec4s(c.shadow_directions).v[path] = vec4(shadow.direction, 0.0);
        Vec4s(c.shadow_contributions).v[path] = vec4(shadow.contribution, 0.0);
        uint slot = atomicAdd(Queues(c.queues).q.connect_count, 1);
        Uints(c.connect_queue).v[slot] = path;
    }
    if (continues) {
        Vec4s(c.ray_origins).v[path] = vec4(origin, 0.0);
        Vec4s(c.ray_directions).v[path] = vec4(direction, 0.0);
        Vec4s(c.throughputs).v[path] = throughput;
        uint slot = atomicAdd(Queues(c.queues).q.extend_count, 1);
        Uints(c.extend_queue).v[slot] = path;
    }
}
