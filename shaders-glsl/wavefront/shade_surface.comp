#version 460
//
// Shade, first stage: emission seen by the path, from the front face only (the side the
// geometric normal points to, flipped for mirrored instances). Scattering and next-event
// estimation come next (docs/WAVEFRONT.md); until then paths end here.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

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
    if (dot(normal, direction) < 0.0) {
        GpuMaterial material = Materials(c.materials).v[mesh.material];
        vec3 throughput = Vec4s(c.throughputs).v[path].xyz;
        Vec4s film = Vec4s(c.film);
        // One path per pixel per pass: no other thread touches this pixel now.
        film.v[path] += vec4(throughput * material.emission, 0.0);
    }
}
