// Where a ray met a surface and the frame its BSDF works in: shared by the path tracer
// (path.glsl) and both subpaths of bidirectional path tracing (bdpt.glsl), so that every
// integrator sees one surface the same way.
#ifndef WAVETRACE_SURFACE_GLSL
#define WAVETRACE_SURFACE_GLSL

#include "scene.glsl"
#include "bsdf.glsl"
#include "textures.glsl"

// How far rays leaving point p start off its surface, against self-hits: relative to the
// coordinates' magnitude, where float spacing grows.
float offset_epsilon(vec3 p) {
    return 1e-4 * max(1.0, max(abs(p.x), max(abs(p.y), abs(p.z))));
}

struct SurfaceHit {
    vec3 point;
    // Geometric normal as the winding gives it (flipped for mirrored instances), not
    // normalized: its length is twice the triangle's area.
    vec3 normal;
    vec3 n;
    // n turned to the side the ray came from.
    vec3 facing;
    // The ray met the side the geometric normal points to.
    bool front;
    GpuMaterial material;
    // The material's index in the scene's table.
    uint material_index;
    GpuInstance instance;
    uvec3 vertices;
    vec3 weights;
    TextureCoordinates tex;
    // COLOR_0 here: it multiplies the base colour.
    vec4 color;
    // How far rays leaving here start off the surface, against self-hits.
    float epsilon;
};

// The hit of ray origin + t direction at hit.t.
SurfaceHit surface_hit(PassConstants c, HitRecord hit, vec3 origin, vec3 direction) {
    SurfaceHit s;
    WorldTriangle triangle = world_triangle(c.positions, c.indices, c.instances, c.meshes, hit.instance, hit.primitive);
    s.instance = triangle.instance;
    s.normal = cross(triangle.p1 - triangle.p0, triangle.p2 - triangle.p0);
    if (triangle.instance.flips_winding != 0) {
        s.normal = -s.normal;
    }
    s.material_index = triangle.mesh.material;
    s.material = Materials(c.materials).v[s.material_index];
    s.front = dot(s.normal, direction) < 0.0;
    s.point = origin + direction * hit.t;
    s.vertices = triangle_vertices(c.indices, triangle, hit.primitive);
    s.weights = barycentric_weights(triangle_barycentrics(triangle, s.point));
    s.tex = TextureCoordinates(vec2(0.0), 0.0, vec2(0.0), 0.0);
    s.color = HAS_VERTEX_COLORS ? interpolated_color(c.colors, s.vertices, s.weights) : vec4(1.0);
    if (HAS_ANY_TEXTURES) {
        s.tex.uv = interpolated_uv(c.uvs, s.vertices, s.weights);
        // The camera pixel's cone, its width at the hit, in UV units: a function of the point
        // alone (not of the segment that reached it), so that textures filter the same
        // whichever subpath of a bidirectional path finds the surface. The cone's slant too is
        // the camera's: with the arriving segment's, a light subpath's vertex read the normal
        // map at another level than a camera subpath's at the same point, and BDPT's splats
        // were 2-6% darker than its next-event estimation on all-features' floor.
        // An orthographic camera's pixel is as wide at every depth, and it looks along its axis.
        vec3 from_camera = s.point - c.camera_origin;
        float camera_distance = length(from_camera);
        float pixel_height = 2.0 * c.camera_half_height / float(c.height);
        if (c.camera_orthographic != 0u) {
            from_camera = c.camera_forward;
            camera_distance = 1.0;
        }
        float cone_width = camera_distance * pixel_height;
        float cos_view =
            max(abs(dot(s.normal, from_camera)) / max(length(s.normal) * camera_distance, 1e-30), 0.1);
        float log_cone = log2(max(cone_width / cos_view, 1e-30));
        float world_area2 = max(length(s.normal), 1e-30);
        s.tex.log_footprint = log_cone + 0.5 * log2(max(triangle_uv_area2(c.uvs, s.vertices), 1e-30) / world_area2);
        if (HAS_SECOND_UVS && s.material.second_uv_textures != 0u) {
            s.tex.second_uv = interpolated_uv(c.second_uvs, s.vertices, s.weights);
            s.tex.second_log_footprint =
                log_cone + 0.5 * log2(max(triangle_uv_area2(c.second_uvs, s.vertices), 1e-30) / world_area2);
        }
    }
    s.n = normalize(s.normal);
    s.facing = s.front ? s.n : -s.n;
    s.epsilon = offset_epsilon(s.point);
    return s;
}

// The BSDF of the surface's material where the ray met it.
Bsdf surface_bsdf(PassConstants c, SurfaceHit s) {
    GpuMaterial m = s.material;
    vec3 base = material_base_color(m, s.tex).rgb * s.color.rgb;
    vec2 metallic_roughness = material_metallic_roughness(m, s.tex);
    LayerFactors layers = material_layers(c.layer_textures, m, s.tex);
    // The coat's normal is the shading frame's to set (shading_frame).
    return Bsdf(base, metallic_roughness.x, layers.specular_color, layers.specular,
                metallic_roughness.y * metallic_roughness.y, layers.transmission, m.ior, layers.clearcoat,
                layers.clearcoat_roughness * layers.clearcoat_roughness, vec3(0.0, 0.0, 1.0));
}

struct ShadingFrame {
    // The shading normal, turned to wo's side.
    vec3 normal;
    vec3 tangent;
    vec3 bitangent;
    // The direction back along the ray, in this frame.
    vec3 wo_local;
};

// The interpolated (and normal-mapped) normal of the surface, turned to the side the ray
// came from. The frame must not depend on which way the path is traced, or the BSDF stops
// being reciprocal and light and camera subpaths see different surfaces (BDPT was 2% darker
// than the path tracer on a normal-mapped floor): where wo is below the shading normal the
// frame stays, and every evaluation and sample from it is zero, as Mitsuba's normal maps
// have it. Only BSDFs without density (smooth glass and mirrors, which nothing connects to)
// fall back to the geometric normal there, so that a smooth-shaded sphere's silhouette
// still refracts and reflects. A coat's normal (bsdf.coat_normal, set here in the frame) is
// the interpolated normal, which glTF leaves unmapped without a clearcoatNormalTexture, and
// mapped by it through the base's tangents where the material has one.
ShadingFrame shading_frame(PassConstants c, SurfaceHit surface, vec3 direction, inout Bsdf bsdf) {
    GpuMaterial material = surface.material;
    vec3 shading = interpolated_normal(c.normals, surface.vertices, surface.instance, surface.weights);
    shading = dot(shading, shading) > 0.0 ? normalize(shading) : surface.n;
    vec3 coat_normal = shading;
    bool base_mapped = HAS_NORMAL_MAPS && material.textures.z != NO_TEXTURE;
    bool coat_mapped = HAS_CLEARCOAT && has_layer_texture(material, LAYER_CLEARCOAT_NORMAL);
    if (base_mapped || coat_mapped) {
        vec4 vertex_tangent = interpolated_tangent(c.tangents, surface.vertices, surface.instance, surface.weights);
        vec3 t = vertex_tangent.xyz - shading * dot(shading, vertex_tangent.xyz);
        if (dot(vertex_tangent.xyz, vertex_tangent.xyz) > 0.0 && dot(t, t) > 0.0) {
            t = normalize(t);
            vec3 b = cross(shading, t) * vertex_tangent.w;
            mat3 tangent_frame = mat3(t, b, shading);
            if (base_mapped) {
                vec3 mapped = tangent_frame * material_normal(material, surface.tex);
                shading = dot(mapped, mapped) > 0.0 ? normalize(mapped) : shading;
            }
            if (coat_mapped) {
                vec3 mapped = tangent_frame * material_coat_normal(c.layer_textures, material, surface.tex);
                coat_normal = dot(mapped, mapped) > 0.0 ? normalize(mapped) : coat_normal;
            }
        }
    }
    coat_normal = dot(coat_normal, surface.facing) < 0.0 ? -coat_normal : coat_normal;
    shading = dot(shading, surface.facing) < 0.0 ? -shading : shading;
    vec3 wo = -direction;
    if (!bsdf_has_density(bsdf) && !(dot(shading, wo) > 1e-6)) {
        shading = surface.facing;
    }
    ShadingFrame frame;
    frame.normal = normalize(shading);
    basis(frame.normal, frame.tangent, frame.bitangent);
    frame.wo_local = to_local(wo, frame.tangent, frame.bitangent, frame.normal);
    if (HAS_CLEARCOAT) {
        bsdf.coat_normal = to_local(coat_normal, frame.tangent, frame.bitangent, frame.normal);
    }
    return frame;
}

#endif
