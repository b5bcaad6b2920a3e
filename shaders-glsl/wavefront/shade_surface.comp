#version 460
//
// Shade: emission seen by the path, from the front face only (the side the geometric
// normal points to, flipped for mirrored instances), then, unless the path has reached
// max_depth segments, one BSDF-sampled continuation queued for extend. Next-event
// estimation and MIS come next (docs/WAVEFRONT.md); without them this is plain, unbiased
// BSDF sampling.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"
#include "rng.glsl"
#include "bsdf.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

vec3 to_world(GpuInstance instance, vec3 p) {
    vec4 h = vec4(p, 1.0);
    return vec3(dot(instance.row0, h), dot(instance.row1, h), dot(instance.row2, h));
}

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
    Uints indices = Uints(c.indices);
    Positions positions = Positions(c.positions);
    uint first = mesh.first_index + 3 * hit.primitive;
    vec3 p0 = to_world(instance, positions.v[mesh.first_vertex + indices.v[first]]);
    vec3 p1 = to_world(instance, positions.v[mesh.first_vertex + indices.v[first + 1]]);
    vec3 p2 = to_world(instance, positions.v[mesh.first_vertex + indices.v[first + 2]]);
    vec3 normal = cross(p1 - p0, p2 - p0);
    if (instance.flips_winding != 0) {
        normal = -normal;
    }
    vec3 direction = Vec4s(c.ray_directions).v[path].xyz;
    GpuMaterial material = Materials(c.materials).v[mesh.material];
    vec3 throughput = Vec4s(c.throughputs).v[path].xyz;
    bool front = dot(normal, direction) < 0.0;
    if (front) {
        Vec4s film = Vec4s(c.film);
        // One path per pixel per pass: no other thread touches this pixel now.
        film.v[path] += vec4(throughput * material.emission, 0.0);
    }
    if (push.bounce + 1 >= c.max_depth) {
        return;
    }

    vec3 n = normalize(normal);
    vec3 facing = front ? n : -n;
    uint sample_index = Queues(c.queues).q.sample_index;
    vec2 u = vec2(wt_random(c.seed, path, sample_index, push.bounce + 1, 0),
                  wt_random(c.seed, path, sample_index, push.bounce + 1, 1));
    vec3 outgoing;
    bool below;
    // `entering` is about the dielectric's medium: its front side is the outside.
    vec3 factor = sample_bsdf(material, direction, facing, front, u, outgoing, below);
    throughput *= factor;
    if (all(equal(throughput, vec3(0.0)))) {
        return;
    }
    vec3 hit_point = Vec4s(c.ray_origins).v[path].xyz + direction * hit.t;
    // Offset along the normal, to the side the new ray leaves from, against self-hits.
    float epsilon = 1e-4 * max(1.0, max(abs(hit_point.x), max(abs(hit_point.y), abs(hit_point.z))));
    Vec4s(c.ray_origins).v[path] = vec4(hit_point + (below ? -facing : facing) * epsilon, 0.0);
    Vec4s(c.ray_directions).v[path] = vec4(outgoing, 0.0);
    Vec4s(c.throughputs).v[path] = vec4(throughput, 1.0);
    uint slot = atomicAdd(Queues(c.queues).q.extend_count, 1);
    Uints(c.extend_queue).v[slot] = path;
}
