// Typed views of the scene tables (src/scene/upload.rs and the renderer's instance, mesh and
// material tables) and the one way to fetch a triangle in world space, shared by shading and
// the light builders so that both see the same positions, bit for bit.
#ifndef WAVETRACE_SCENE_GLSL
#define WAVETRACE_SCENE_GLSL

#include "common.glsl"

layout(buffer_reference, scalar) readonly buffer Positions { vec3 v[]; };
layout(buffer_reference, scalar) readonly buffer Normals { vec3 v[]; };
layout(buffer_reference, scalar) readonly buffer Uvs { vec2 v[]; };
layout(buffer_reference, scalar) readonly buffer Tangents { vec4 v[]; };
layout(buffer_reference, scalar) readonly buffer VertexColors { vec4 v[]; };
layout(buffer_reference, scalar) readonly buffer Indices { uint v[]; };
layout(buffer_reference, scalar) readonly buffer Instances { GpuInstance v[]; };
layout(buffer_reference, scalar) readonly buffer Meshes { GpuMesh v[]; };
layout(buffer_reference, scalar) readonly buffer Materials { GpuMaterial v[]; };
layout(buffer_reference, scalar) readonly buffer LayerTextures { GpuTextureBinding v[]; };

// Whether the instance's material emits: where a path's last segment ends only emission counts,
// so a hit there on an instance that does not emit is not shaded.
bool instance_emits(uint64_t instances, uint instance) {
    return Instances(instances).v[instance].emits != 0;
}

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

// The world-space corners of w's triangle whose first index is `first`.
void place_corners(inout WorldTriangle w, uint64_t positions, uint64_t indices, uint first) {
    Indices index = Indices(indices);
    Positions position = Positions(positions);
    w.p0 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first]]);
    w.p1 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first + 1]]);
    w.p2 = to_world(w.instance, position.v[w.mesh.first_vertex + index.v[first + 2]]);
}

WorldTriangle world_triangle(uint64_t positions, uint64_t indices, uint64_t instances, uint64_t meshes,
                             uint instance_index, uint triangle) {
    WorldTriangle w;
    w.instance = Instances(instances).v[instance_index];
    w.mesh = Meshes(meshes).v[w.instance.mesh];
    place_corners(w, positions, indices, w.mesh.first_index + 3 * triangle);
    return w;
}

// The triangle of a flattened light (`GpuLightEntry`): its mesh holds the triangle alone,
// from its own first index, so that `triangle_vertices` takes triangle 0 of it.
WorldTriangle light_triangle(uint64_t positions, uint64_t indices, uint64_t instances, GpuLightEntry light) {
    WorldTriangle w;
    w.instance = Instances(instances).v[light.instance];
    w.mesh = GpuMesh(light.first_vertex, light.first_index, light.material, 1);
    place_corners(w, positions, indices, light.first_index);
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

// The scene-wide indices of a triangle's three vertices (into positions, normals, ...).
uvec3 triangle_vertices(uint64_t indices, WorldTriangle w, uint triangle) {
    Indices index = Indices(indices);
    uint first = w.mesh.first_index + 3 * triangle;
    return uvec3(index.v[first], index.v[first + 1], index.v[first + 2]) + w.mesh.first_vertex;
}

vec3 barycentric_weights(vec2 barycentrics) {
    return vec3(1.0 - barycentrics.x - barycentrics.y, barycentrics.x, barycentrics.y);
}

// The object-to-world 3x3 part of an instance, as columns.
mat3 instance_linear(GpuInstance instance) {
    return transpose(mat3(instance.row0.xyz, instance.row1.xyz, instance.row2.xyz));
}

// The interpolated vertex normal in world space (unnormalised), or zero for a mesh without
// normals (whose vertices store zero). Normals transform by the inverse transpose: the
// cofactor matrix over the determinant, whose size normalisation removes and whose sign a
// mirroring instance supplies.
vec3 interpolated_normal(uint64_t normals, uvec3 vertices, GpuInstance instance, vec3 weights) {
    Normals normal = Normals(normals);
    vec3 n = normal.v[vertices.x] * weights.x + normal.v[vertices.y] * weights.y + normal.v[vertices.z] * weights.z;
    mat3 m = instance_linear(instance);
    vec3 world = cross(m[1], m[2]) * n.x + cross(m[2], m[0]) * n.y + cross(m[0], m[1]) * n.z;
    return instance.flips_winding != 0 ? -world : world;
}

vec2 interpolated_uv(uint64_t uvs, uvec3 vertices, vec3 weights) {
    Uvs uv = Uvs(uvs);
    return uv.v[vertices.x] * weights.x + uv.v[vertices.y] * weights.y + uv.v[vertices.z] * weights.z;
}

// COLOR_0 at the point: the base colour's multiplier (1 for meshes without). Exactly 1 in a
// scene without colours (address 0), where the general kernels run this too.
vec4 interpolated_color(uint64_t colors, uvec3 vertices, vec3 weights) {
    if (colors == 0ul) {
        return vec4(1.0);
    }
    VertexColors color = VertexColors(colors);
    return color.v[vertices.x] * weights.x + color.v[vertices.y] * weights.y + color.v[vertices.z] * weights.z;
}

// The triangle's area in UV space (twice it, as the world's below is).
float triangle_uv_area2(uint64_t uvs, uvec3 vertices) {
    Uvs uv = Uvs(uvs);
    vec2 a = uv.v[vertices.y] - uv.v[vertices.x];
    vec2 b = uv.v[vertices.z] - uv.v[vertices.x];
    return abs(a.x * b.y - a.y * b.x);
}

// The interpolated tangent in world space (xyz, unnormalised) and the bitangent's sign (w),
// flipped for a mirroring instance; zero for a mesh without tangents.
vec4 interpolated_tangent(uint64_t tangents, uvec3 vertices, GpuInstance instance, vec3 weights) {
    Tangents tangent = Tangents(tangents);
    vec4 t = tangent.v[vertices.x] * weights.x + tangent.v[vertices.y] * weights.y + tangent.v[vertices.z] * weights.z;
    float sign = tangent.v[vertices.x].w < 0.0 ? -1.0 : 1.0;
    return vec4(instance_linear(instance) * t.xyz, instance.flips_winding != 0 ? -sign : sign);
}

float luminance(vec3 rgb) {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

#endif
