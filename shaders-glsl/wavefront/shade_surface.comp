#version 460
//
// Shade: emission seen by the path, from the front face only (the side the geometric
// normal points to, flipped for mirrored instances), weighted against next-event estimation
// by the power heuristic; then, unless the path has reached max_depth segments, one light
// sample (a shadow ray queued for connect) and one BSDF-sampled continuation queued for
// extend. The path's last BSDF density rides in throughput.w (0 after a delta BSDF or the
// camera, where emission counts in full).
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"
#include "rng.glsl"
#include "bsdf.glsl"
#include "lights.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= Queues(c.queues).q.shade_count) {
        return;
    }
    uint path = Uints(c.shade_queue).v[index];
    HitRecord hit = Hits(c.hits).v[path];
    GpuInstance instance = Instances(c.instances).v[hit.instance];
    GpuMesh mesh = Meshes(c.meshes).v[instance.mesh];
    vec3 p0;
    vec3 p1;
    vec3 p2;
    world_triangle(c.positions, c.indices, instance, mesh, hit.primitive, p0, p1, p2);
    vec3 normal = cross(p1 - p0, p2 - p0);
    if (instance.flips_winding != 0) {
        normal = -normal;
    }
    vec3 direction = Vec4s(c.ray_directions).v[path].xyz;
    GpuMaterial material = Materials(c.materials).v[mesh.material];
    vec3 throughput = Vec4s(c.throughputs).v[path].xyz;
    bool front = dot(normal, direction) < 0.0;
    vec3 n = normalize(normal);
    float last_bsdf_pdf = Vec4s(c.throughputs).v[path].w;
    if (front && luminance(material.emission) > 0.0) {
        float weight = 1.0;
        if (last_bsdf_pdf > 0.0) {
            float area_density = light_hit_area_density(c, hit.instance, hit.primitive, 0.5 * length(normal));
            float light_pdf = area_density * hit.t * hit.t / max(-dot(n, direction), 1e-8);
            weight = power_heuristic(last_bsdf_pdf, light_pdf);
        }
        Vec4s film = Vec4s(c.film);
        // One path per pixel per pass: no other thread touches this pixel now.
        film.v[path] += vec4(throughput * material.emission * weight, 0.0);
    }
    if (push.bounce + 1 >= c.max_depth) {
        return;
    }

    vec3 facing = front ? n : -n;
    uint sample_index = Queues(c.queues).q.sample_index;
    uint dimension_bounce = push.bounce + 1;
    vec3 hit_point = Vec4s(c.ray_origins).v[path].xyz + direction * hit.t;
    float epsilon = 1e-4 * max(1.0, max(abs(hit_point.x), max(abs(hit_point.y), abs(hit_point.z))));

    if (material.kind == MATERIAL_LAMBERTIAN && c.light_count > 0) {
        float u_light = wt_random(c.seed, path, sample_index, dimension_bounce, 2);
        vec2 u_point = vec2(wt_random(c.seed, path, sample_index, dimension_bounce, 3),
                            wt_random(c.seed, path, sample_index, dimension_bounce, 4));
        vec3 light_point;
        vec3 light_normal;
        vec3 light_radiance;
        float light_area_density;
        bool chosen = sample_light(c, u_light, u_point, light_point, light_normal, light_radiance, light_area_density);
        vec3 origin = hit_point + facing * epsilon;
        vec3 to_light = light_point - origin;
        float distance2 = dot(to_light, to_light);
        float distance = sqrt(distance2);
        vec3 wl = to_light / distance;
        float cos_surface = dot(wl, facing);
        float cos_light = -dot(wl, light_normal);
        if (chosen && cos_surface > 0.0 && cos_light > 0.0) {
            float light_pdf = light_area_density * distance2 / cos_light;
            float bsdf_pdf = cos_surface / PI;
            vec3 contribution = throughput * material.base_color.rgb / PI * cos_surface * light_radiance / light_pdf
                                * power_heuristic(light_pdf, bsdf_pdf);
            Vec4s(c.shadow_origins).v[path] = vec4(origin, distance * (1.0 - 1e-4));
            Vec4s(c.shadow_directions).v[path] = vec4(wl, 0.0);
            Vec4s(c.shadow_contributions).v[path] = vec4(contribution, 0.0);
            uint slot = atomicAdd(Queues(c.queues).q.connect_count, 1);
            Uints(c.connect_queue).v[slot] = path;
        }
    }

    vec2 u = vec2(wt_random(c.seed, path, sample_index, dimension_bounce, 0),
                  wt_random(c.seed, path, sample_index, dimension_bounce, 1));
    vec3 outgoing;
    bool below;
    // `entering` is about the dielectric's medium: its front side is the outside.
    vec3 factor = sample_bsdf(material, direction, facing, front, u, outgoing, below);
    throughput *= factor;
    if (all(equal(throughput, vec3(0.0)))) {
        return;
    }
    // Offset along the normal, to the side the new ray leaves from, against self-hits.
    Vec4s(c.ray_origins).v[path] = vec4(hit_point + (below ? -facing : facing) * epsilon, 0.0);
    Vec4s(c.ray_directions).v[path] = vec4(outgoing, 0.0);
    float bsdf_pdf = material.kind == MATERIAL_LAMBERTIAN ? max(dot(outgoing, facing), 0.0) / PI : 0.0;
    Vec4s(c.throughputs).v[path] = vec4(throughput, bsdf_pdf);
    uint slot = atomicAdd(Queues(c.queues).q.extend_count, 1);
    Uints(c.extend_queue).v[slot] = path;
}
