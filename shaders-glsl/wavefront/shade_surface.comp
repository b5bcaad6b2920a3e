#version 460
//
// Shade every path queued with a hit (path.glsl's shade_hit): emission to the film, the
// light sample's shadow ray queued for connect, the continuation queued for extend; queue
// appends take one atomic per subgroup.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require

#include "path.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

// A queue slot for every lane where `wants` holds, with one atomic per subgroup instead of one
// per lane: the first such lane reserves the subgroup's run, each lane takes its place in it.
uint append_slot(bool wants, uint counter_kind) {
    uvec4 ballot = subgroupBallot(wants);
    uint count = subgroupBallotBitCount(ballot);
    uint base = 0;
    if (count > 0 && subgroupElect()) {
        base = counter_kind == 0 ? atomicAdd(Queues(constants().queues).q.connect_count, count)
                                 : atomicAdd(Queues(constants().queues).q.extend_count, count);
    }
    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
}

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes past the queue's end stay for the subgroup appends below, doing nothing else.
    bool queued = index < Queues(c.queues).q.shade_count;
    uint path = queued ? Uints(c.shade_queue).v[index] : 0;
    HitRecord hit;
    vec3 origin;
    vec3 direction;
    vec4 throughput;
    if (queued) {
        hit = Hits(c.hits).v[path];
        origin = Vec4s(c.ray_origins).v[path].xyz;
        direction = Vec4s(c.ray_directions).v[path].xyz;
        throughput = Vec4s(c.throughputs).v[path];
    }
    vec3 emitted;
    bool has_shadow;
    ShadowRay shadow;
    uint sample_index = Queues(c.queues).q.sample_index;
    bool continues = false;
    has_shadow = false;
    emitted = vec3(0.0);
    if (queued) {
        continues = shade_hit(c, path, sample_index, push.bounce, hit, origin, direction, throughput, emitted,
                              has_shadow, shadow);
    }
    if (any(notEqual(emitted, vec3(0.0)))) {
        Vec4s film = Vec4s(c.film);
        // One path per pixel per pass: no other thread touches this pixel now.
        film.v[path] += vec4(emitted, 0.0);
    }
    uint connect_slot = append_slot(has_shadow, 0);
    uint extend_slot = append_slot(continues, 1);
    if (has_shadow) {
        Vec4s(c.shadow_origins).v[path] = vec4(shadow.origin, shadow.t_max);
        Vec4s(c.shadow_directions).v[path] = vec4(shadow.direction, 0.0);
        Vec4s(c.shadow_contributions).v[path] = vec4(shadow.contribution, 0.0);
        Uints(c.connect_queue).v[connect_slot] = path;
    }
    if (continues) {
        Vec4s(c.ray_origins).v[path] = vec4(origin, 0.0);
        Vec4s(c.ray_directions).v[path] = vec4(direction, 0.0);
        Vec4s(c.throughputs).v[path] = throughput;
        Uints(c.extend_queue).v[extend_slot] = path;
    }
}
