// Typed views of the scene tables (src/scene/upload.rs and the renderer's instance, mesh and
// material tables) and the one way to fetch a triangle in world space, shared by shading and
// the light builders so that both see the same positions, bit for bit.
#ifndef WAVETRACE_SCENE_GLSL
#define WAVETRACE_SCENE_GLSL

#include "common.glsl"

layout(buffer_reference, scalar) readonly buffer Positions { vec3 v[]; };
layout(buffer_reference, scalar) readonly buffer Normals { vec3 v[]; };
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

// Where p lies in the triangle: weights of p1 and p2 (p0 gets the rest), from the projection
// onto its plane, so that the path state need not carry them.
vec2 triangle_barycentrics(WorldTriangle w, vec3 p) {
    vec3 e1 = w.p1 - w.p0;
    vec3 e2 = w.p2 - w.p0;
    vec3 v = p - w.p0;
    float d00 = dot(e1, e1);
    float d01 = dot(e1, e2);
    float d11 = dot(e2, e2);
    float d20 = dot(v, e1);
    float d21 = dot(v, e2);
    float denominator = d00 * d11 - d01 * d01;
    if (!(denominator > 0.0)) {
        return vec2(1.0 / 3.0);
    }
    return vec2(d11 * d20 - d01 * d21, d00 * d21 - d01 * d20) / denominator;
}

// The interpolated vertex normal in world space (unnormalised sign: either side), or zero
// for a mesh without normals (whose vertices store zero).
vec3 interpolated_normal(uint64_t normals, uint64_t indices, WorldTriangle w, uint triangle, vec2 barycentrics) {
    Indices index = Indices(indices);
    Normals normal = Normals(normals);
    uint first = w.mesh.first_index + 3 * triangle;
    vec3 n = normal.v[w.mesh.first_vertex + index.v[first]] * (1.0 - barycentrics.x - barycentrics.y)
             + normal.v[w.mesh.first_vertex + index.v[first + 1]] * barycentrics.x
             + normal.v[w.mesh.first_vertex + index.v[first + 2]] * barycentrics.y;
    // Normals transform by the inverse transpose; the cofactor matrix is that times the
    // determinant, whose size normalisation removes and whose sign callers do not use.
    vec3 c0 = vec3(w.instance.row0.x, w.instance.row1.x, w.instance.row2.x);
    vec3 c1 = vec3(w.instance.row0.y, w.instance.row1.y, w.instance.row2.y);
    vec3 c2 = vec3(w.instance.row0.z, w.instance.row1.z, w.instance.row2.z);
    return cross(c1, c2) * n.x + cross(c2, c0) * n.y + cross(c0, c1) * n.z;
}

float luminance(vec3 rgb) {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

#endif
