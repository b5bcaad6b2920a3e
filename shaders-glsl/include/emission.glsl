// The start of a light subpath (bidirectional methods): a point chosen as next-event
// estimation chooses one (sample_direct_light), so that both give it the same density, which
// the MIS weights assume (src/integrator/bdpt/mis.rs), and a direction of emission into the
// scene. Emissive triangles emit cosine-weighted about their front normal, point lights
// uniformly over the sphere, spot lights uniformly inside their outer cone; lights at infinity
// (directional lights and the environment) from a point on the disk of the scene's bounding
// radius across their direction, one radius behind the scene.
//
// `weight` is what the subpath carries from its start: emitted radiance (intensity, or
// irradiance for a directional light) x cos_out / (position_pdf x direction_pdf). Its mean
// over samples is the power the lights emit (tests/emission.rs).
#ifndef WAVETRACE_EMISSION_GLSL
#define WAVETRACE_EMISSION_GLSL

#include "bsdf.glsl"
#include "lights.glsl"

struct EmissionSample {
    vec3 origin;
    vec3 direction;
    vec3 weight;
    // Per unit area, the light's choice included; for a light at infinity, over the disk.
    float position_pdf;
    // Per solid angle; for a directional light, the probability of choosing it.
    float direction_pdf;
    // To the light's normal; 1 where a light has none.
    float cos_out;
    // Whether a camera subpath can find this point (emissive triangles, the environment).
    bool hittable;
    bool at_infinity;
    // The light's surface normal (emissive triangles; zero for the others).
    vec3 normal;
    // A point or spot light's KHR_lights_punctual range (0: none): its window applies on the
    // first segment, once its length is known.
    float range;
};

vec3 sample_uniform_cone_local(vec2 u, float cos_max) {
    float cos_theta = 1.0 - u.x * (1.0 - cos_max);
    float sin_theta = sqrt(max(0.0, 1.0 - cos_theta * cos_theta));
    float phi = 2.0 * PI * u.y;
    return vec3(sin_theta * cos(phi), sin_theta * sin(phi), cos_theta);
}

vec2 sample_concentric_disk(vec2 u) {
    vec2 o = 2.0 * u - 1.0;
    if (o.x == 0.0 && o.y == 0.0) {
        return vec2(0.0);
    }
    float r = abs(o.x) > abs(o.y) ? o.x : o.y;
    float phi = abs(o.x) > abs(o.y) ? (PI / 4.0) * (o.y / o.x) : (PI / 2.0) - (PI / 4.0) * (o.x / o.y);
    return r * vec2(cos(phi), sin(phi));
}

bool sample_emission(PassConstants c, float u_light, vec2 u_point, vec2 u_direction, out EmissionSample e) {
    e = EmissionSample(vec3(0.0), vec3(0.0, 0.0, 1.0), vec3(0.0), 0.0, 0.0, 1.0, false, false, vec3(0.0), 0.0);
    LightSample s;
    if (!sample_direct_light(c, power_context(), u_light, u_point, s)) {
        return false;
    }
    vec3 t;
    vec3 b;
    if (s.at_infinity) {
        // Light travels away from where it comes from.
        e.direction = -s.point_or_direction;
        basis(e.direction, t, b);
        float radius = c.scene_radius;
        vec2 disk = sample_concentric_disk(u_direction) * radius;
        e.origin = c.scene_center + t * disk.x + b * disk.y - e.direction * radius;
        e.position_pdf = 1.0 / (PI * radius * radius);
        e.direction_pdf = s.pdf;
        e.hittable = !s.delta;
        e.at_infinity = true;
    } else if (HAS_PUNCTUAL_LIGHTS && s.delta) {
        GpuPunctualLight light = PunctualLights(c.punctual_lights).v[s.punctual];
        e.origin = light.position;
        e.range = light.range;
        e.position_pdf = s.pdf;
        if (light.kind == PUNCTUAL_SPOT) {
            basis(light.direction, t, b);
            e.direction = from_local(sample_uniform_cone_local(u_direction, light.cos_outer), t, b, light.direction);
            e.direction_pdf = 1.0 / (2.0 * PI * (1.0 - light.cos_outer));
            float edge = clamp((dot(light.direction, e.direction) - light.cos_outer)
                               / max(light.cos_inner - light.cos_outer, 1e-3), 0.0, 1.0);
            s.radiance *= edge * edge;
        } else {
            e.direction = from_local(sample_uniform_cone_local(u_direction, -1.0), vec3(1, 0, 0), vec3(0, 1, 0),
                                     vec3(0, 0, 1));
            e.direction_pdf = 1.0 / (4.0 * PI);
        }
    } else {
        basis(s.normal, t, b);
        vec3 local = sample_cosine_local(u_direction);
        e.origin = s.point_or_direction;
        e.normal = s.normal;
        e.direction = from_local(local, t, b, s.normal);
        e.cos_out = local.z;
        e.direction_pdf = local.z / PI;
        e.position_pdf = s.pdf;
        e.hittable = true;
        s.radiance *= coat_over_emission(s.clearcoat, e.cos_out);
    }
    e.weight = s.radiance * e.cos_out / (e.position_pdf * e.direction_pdf);
    return e.position_pdf > 0.0 && e.direction_pdf > 0.0 && !any(isinf(e.weight)) && !any(isnan(e.weight));
}

// The solid-angle density with which sample_emission would send light from the point of a
// next-event sample `s` in `direction` (leaving the light), the light's choice not included.
// For a light at infinity: the disk's density per unit area, as in sample_emission.
float emission_direction_pdf(PassConstants c, LightSample s, vec3 direction) {
    if (s.at_infinity) {
        return 1.0 / (PI * c.scene_radius * c.scene_radius);
    }
    if (HAS_PUNCTUAL_LIGHTS && s.delta) {
        GpuPunctualLight light = PunctualLights(c.punctual_lights).v[s.punctual];
        if (light.kind == PUNCTUAL_SPOT) {
            return dot(light.direction, direction) >= light.cos_outer ? 1.0 / (2.0 * PI * (1.0 - light.cos_outer)) : 0.0;
        }
        return 1.0 / (4.0 * PI);
    }
    return max(dot(s.normal, direction), 0.0) / PI;
}

#endif
