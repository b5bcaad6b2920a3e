// The BSDFs of the reference conventions: Lambertian, perfect mirror, smooth dielectric.
// Each samples a direction and returns the throughput factor f * cos / pdf.
#ifndef WAVETRACE_BSDF_GLSL
#define WAVETRACE_BSDF_GLSL

#define MATERIAL_LAMBERTIAN 0u
#define MATERIAL_MIRROR 1u
#define MATERIAL_DIELECTRIC 2u

const float PI = 3.14159265358979;

// An orthonormal basis around n (Duff et al. 2017, "Building an Orthonormal Basis, Revisited").
void basis(vec3 n, out vec3 t, out vec3 b) {
    float s = n.z >= 0.0 ? 1.0 : -1.0;
    float a = -1.0 / (s + n.z);
    float c = n.x * n.y * a;
    t = vec3(1.0 + s * n.x * n.x * a, s * c, -s * n.x);
    b = vec3(c, s + n.y * n.y * a, -n.y);
}

vec3 sample_cosine(vec3 n, vec2 u) {
    float r = sqrt(u.x);
    float phi = 2.0 * PI * u.y;
    vec3 t, b;
    basis(n, t, b);
    return normalize(t * (r * cos(phi)) + b * (r * sin(phi)) + n * sqrt(max(0.0, 1.0 - u.x)));
}

// Unpolarised Fresnel reflectance of a smooth dielectric; eta = n_incident / n_transmitted.
float fresnel_dielectric(float cos_i, float eta) {
    float sin2_t = eta * eta * max(0.0, 1.0 - cos_i * cos_i);
    if (sin2_t >= 1.0) {
        return 1.0;
    }
    float cos_t = sqrt(1.0 - sin2_t);
    float rs = (eta * cos_i - cos_t) / (eta * cos_i + cos_t);
    float rp = (cos_i - eta * cos_t) / (cos_i + eta * cos_t);
    return 0.5 * (rs * rs + rp * rp);
}

// Samples the material at a surface whose normal n faces the incoming direction `wi`
// (pointing towards the surface). Returns the throughput factor; `outgoing` is the new
// direction and `below` says whether it leaves through the other side.
vec3 sample_bsdf(GpuMaterial material, vec3 wi, vec3 n, bool entering, vec2 u, out vec3 outgoing, out bool below) {
    below = false;
    if (material.kind == MATERIAL_MIRROR) {
        outgoing = reflect(wi, n);
        return material.base_color.rgb;
    }
    if (material.kind == MATERIAL_DIELECTRIC) {
        float eta = entering ? 1.0 / material.ior : material.ior;
        float cos_i = -dot(wi, n);
        float reflectance = fresnel_dielectric(cos_i, eta);
        if (u.x < reflectance) {
            outgoing = reflect(wi, n);
        } else {
            outgoing = refract(wi, n, eta);
            below = true;
        }
        // Chosen by Fresnel, so f * cos / pdf = 1. The solid-angle factor eta^2 of
        // refraction is left out: every camera path that reaches a light leaves the
        // (closed) dielectric again, so the factors cancel.
        return vec3(1.0);
    }
    outgoing = sample_cosine(n, u);
    return material.base_color.rgb;
}

#endif
