// Typed views of the scene tables (src/scene/upload.rs and the renderer's instance, mesh and
// material tables) and the one way to fetch a triangle in world space, shared by shading and
// the light builders so that both see the same positions, bit for bit.
#ifndef WAVETRACE_SCENE_GLSL
#define WAVETRACE_SCENE_GLSL

#include "common.glsl"

layout(buffer_reference, scalar) readonly buffer Positions { vec3 v[]; };
layout(buffer_reference, scalar) readonly buffer Indices { uint v[]; };
layout(buffer_reference, scalar) readonly buffer Instances { GpuInstance v[]; };
layout(buffer_reference, scalar) readonly buffer Meshes { GpuMesh v[]; };
layout(buffer_reference, scalar) readonly buffer Materials { GpuMaterial v[]; };

vec3 to_world(GpuInstance instance, vec3 p) {
    vec4 h = vec4(p, 1.0);
    return vec3(dot(instance.row0, h), dot(instance.row1, h), dot(instance.row2, h));
}

// One triangle of one instance: the instance, its mesh and the corners in world space, in the
// mesh's winding; `cross(p1 - p0, p2 - p0)` points to the front unless the instance mirrors
// (`flips_winding`).
struct WorldTriangle {
    GpuInstance instance;
    GpuMesh mesh;
    vec3 p0;
    vec3 p1;
    vec3 p2;
};

WorldTriangle world_triangle(uint64_t positions, uint64_t indices, uint64_t instances, uint64_t meshes,
                             uint instance_index, uint triangle) {
    WorldTriangle w;
    w.instance = Instances(instances).v[instance_index];
    w.mesh = Meshes(meshes).v[w.instance.mesh];
    Indices index = Indices(indices);
    Positions position = Positions(positions);
    uint first = w.mesh.first_index + 3 * triangle;
    w.p0 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first]]);
    w.p1 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first + 1]]);
    w.p2 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first + 2]]);
    return w;
}

float luminance(vec3 rgb) {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

#endif
