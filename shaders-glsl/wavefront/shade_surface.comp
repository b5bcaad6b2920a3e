#version 460
//
// Shade every path queued with a hit (path.glsl's shade_hit), in material order when the
// counting sort ran: emission to the film, the light sample's shadow path appended to the
// connect queue, the continuation to the extend queue; a path that ends frees its slot.
#extension GL_GOOGLE_include_directive : require

#define SUBGROUP_APPEND
#define WORKGROUP_APPEND
#define LIGHT_CULLING_SCALARISED
#include "queues.glsl"
#include "path.glsl"
#include "film.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes past the queue's end stay for the workgroup's appends, with nothing to append.
    bool shading = index < launched(QUEUE_SHADE);
    uint path = 0;
    uint pixel = 0;
    uint packed_sample = 0;
    vec3 origin = vec3(0.0);
    vec3 direction = vec3(0.0);
    vec4 throughput = vec4(0.0);
    uint light_normal = 0;
    bool has_shadow = false;
    ShadowRay shadow;
    bool continues = false;
    if (shading) {
        path = Uints(c.sort_buckets > 0 ? c.sorted_shade_queue : c.shade_queue).v[index];
        pixel = Uints(c.path_pixels).v[path];
        // In extend's order (route_hit.glsl) the queue also holds the paths extend ended.
        shading = pixel != INACTIVE_PATH;
    }
    if (shading) {
        packed_sample = Uints(c.path_samples).v[path];
        PathHit stored = Hits(c.hits).v[path];
        HitRecord hit = HitRecord(stored.t, stored.instance, stored.primitive, 0);
        origin = Vec3s(c.ray_origins).v[path];
        direction = Vec3s(c.ray_directions).v[path];
        throughput = Vec4s(c.throughputs).v[path];
        light_normal = Uints(c.light_normals).v[path];
        vec3 emitted;
        continues = shade_hit(c, pixel, path_sample(packed_sample), path_bounce(packed_sample), hit, origin,
                              direction, throughput, light_normal, emitted, has_shadow, shadow);
        film_add(c.film, pixel, film_quantize(emitted));
    }
    uvec2 slots = enqueue_extend_and_connect(continues, has_shadow);
    uint extend_slot = slots.x;
    uint shadow_slot = slots.y;
    // The schedulers make room for every shadow path before shading (kernel_graph.rs); the
    // test only guards memory if one ever did not.
    if (has_shadow && shadow_slot < c.path_slots) {
        Vec4s(c.shadow_origins).v[shadow_slot] = vec4(shadow.origin, shadow.t_max);
        Vec3s(c.shadow_directions).v[shadow_slot] = shadow.direction;
        Vec3s(c.shadow_contributions).v[shadow_slot] = shadow.contribution;
        Uints(c.shadow_pixels).v[shadow_slot] = pixel;
        store_ray_sort_key(c, c.connect_keys, shadow_slot, shadow.origin, shadow.direction);
    }
    if (continues) {
        Vec3s(c.ray_origins).v[path] = origin;
        Vec3s(c.ray_directions).v[path] = direction;
        Vec4s(c.throughputs).v[path] = throughput;
        Uints(c.light_normals).v[path] = light_normal;
        Uints(c.path_samples).v[path] = packed_sample + (1u << SAMPLE_BITS);
        Uints(c.extend_queue).v[extend_slot] = path;
        store_ray_sort_key(c, c.extend_keys, extend_slot, origin, direction);
    } else if (shading) {
        Uints(c.path_pixels).v[path] = INACTIVE_PATH;
    }
}
