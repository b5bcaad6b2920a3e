// One path, one vertex at a time: the camera ray, and what a surface hit does to a path
// (emission weighted by MIS, a next-event shadow ray, the BSDF-sampled continuation). Shared
// by the wavefront kernels, which spread a path over queues, and the megakernel, which keeps
// it in registers, so both estimate the same thing from the same random numbers.
#ifndef WAVETRACE_PATH_GLSL
#define WAVETRACE_PATH_GLSL

#include "wavefront.glsl"
#include "sampler.glsl"
#include "bsdf.glsl"
#include "lights.glsl"
#include "textures.glsl"
#include "camera.glsl"
#include "surface.glsl"

// Whether the render's numbers are Sobol's: known when the kernel is specialised (a kernel of
// one sampler carries neither the other's code nor its registers), else asked.
bool sobol_numbers(PassConstants c) {
    return HAS_SOBOL_SAMPLER && (!HAS_INDEPENDENT_SAMPLER || c.path_sampler == SAMPLER_SOBOL);
}

// Number `dimension` of a path's bounce, from the render's sampler.
float path_number(PassConstants c, uint pixel, uint sample_index, uint bounce, uint dimension) {
    if (sobol_numbers(c)) {
        return sobol_sample(c.seed, pixel, sample_index, bounce, dimension);
    }
    return wt_random(c.seed, pixel, sample_index, bounce, dimension);
}

// Two numbers of a bounce that the path uses together, by their dimensions: the first two
// coordinates of one set of sampler.glsl's sample_set, which the Sobol sampler shuffles and
// scrambles once for both.
vec2 path_pair(PassConstants c, uint pixel, uint sample_index, uint bounce, uvec2 dimensions) {
    if (sobol_numbers(c)) {
        return sobol_pair_sample(c.seed, pixel, sample_index, bounce, sample_set(bounce, dimensions.x).x);
    }
    return vec2(wt_random(c.seed, pixel, sample_index, bounce, dimensions.x),
                wt_random(c.seed, pixel, sample_index, bounce, dimensions.y));
}

// A light sample's numbers: its point (dimensions 3 and 4) and the light's choice (2), one set.
vec3 path_light_numbers(PassConstants c, uint pixel, uint sample_index, uint bounce) {
    if (sobol_numbers(c)) {
        return sobol_triple_sample(c.seed, pixel, sample_index, bounce, sample_set(bounce, 2u).x);
    }
    return vec3(wt_random(c.seed, pixel, sample_index, bounce, 3u), wt_random(c.seed, pixel, sample_index, bounce, 4u),
                wt_random(c.seed, pixel, sample_index, bounce, 2u));
}

// Box-filter jitter from dimensions 0 and 1 of bounce 0; the ray starts on the near plane.
void camera_ray(PassConstants c, uint pixel, uint sample_index, out vec3 origin, out vec3 direction) {
    uint x = pixel % c.width;
    uint y = pixel / c.width;
    vec2 jitter = path_pair(c, pixel, sample_index, 0u, uvec2(0u, 1u));
    camera_ray_through(c, vec2(x, y) + jitter, origin, direction);
}

// Russian roulette as Mitsuba 3 plays it: once a path has scattered `scatterings` >= rr_depth
// times, it goes on with probability min(max(throughput / scale), 0.95) and its throughput
// is divided by that probability, so the estimate stays unbiased. `scale`: for a light
// subpath its throughput where it started; for radiance, the 1/eta^2 its refractions put in
// the throughput (roulette_radiance_scale). `u` is a number the path draws for this alone.
// False: the path ends here.
bool russian_roulette(PassConstants c, uint scatterings, float u, float scale, inout vec3 throughput) {
    if (c.rr_depth == 0 || scatterings < c.rr_depth) {
        return true;
    }
    float survival = min(max3(throughput) / scale, 0.95);
    if (!(u < survival)) {
        return false;
    }
    throughput /= survival;
    return true;
}

// Mitsuba plays roulette on throughput x eta^2, undoing the 1/eta^2 radiance takes at each
// refraction, so that paths inside glass are not cut for it. Media here do not nest, so that
// product is 1/ior^2 of the material the next segment runs through, or 1 outside.
float roulette_radiance_scale(Bsdf bsdf, bool front, bool below) {
    bool inside_next = bsdf.transmission > 0.0 && front == below;
    return inside_next ? 1.0 / (bsdf.ior * bsdf.ior) : 1.0;
}

// A next-event estimation sample: the segment to test and what it adds if nothing blocks it.
struct ShadowRay {
    vec3 origin;
    float t_max;
    vec3 direction;
    vec3 contribution;
};

// What a hit on segment `bounce` of the path (ray `origin` + t `direction`, throughput with
// the last BSDF density in w: 0 after a delta lobe or the camera, where emission counts in
// full) does. Emission is seen from the front face only (the side the geometric normal points
// to, flipped for mirrored instances) and weighted against next-event estimation by the power
// heuristic; unless the path has reached max_depth segments, one light sample and one
// BSDF-sampled continuation follow. The BSDF works around the interpolated vertex normal;
// directions on the wrong side of the geometric surface for what they do (a reflection below
// it, a refraction above) are dropped, so smooth shading never leaks light through a surface.
// Returns whether the path goes on, with `origin`, `direction` and `throughput` its next
// segment.
bool shade_hit(PassConstants c, uint pixel, uint sample_index, uint bounce, HitRecord hit, inout vec3 origin,
               inout vec3 direction, inout vec4 throughput, inout uint light_normal, out vec3 emitted,
               out bool has_shadow, out ShadowRay shadow) {
    emitted = vec3(0.0);
    has_shadow = false;
    shadow = ShadowRay(vec3(0.0), 0.0, vec3(0.0), vec3(0.0));
    SurfaceHit surface = surface_hit(c, hit, origin, direction);
    GpuMaterial material = surface.material;
    // A back face seen from inside: the segment ran through this material's volume (closed
    // meshes, media not nested beyond touching), so Beer's law applies along it.
    if (HAS_VOLUMES && !surface.front) {
        throughput.xyz *= exp(-material.absorption * hit.t);
    }
    float last_bsdf_pdf = throughput.w;
    if (surface.front && luminance(material.emission) > 0.0) {
        float weight = 1.0;
        if (last_bsdf_pdf > 0.0) {
            // The context the light sampler had where this direction was sampled: the ray's
            // origin and the normal the path kept.
            LightContext before = LightContext(origin, decode_light_normal(light_normal), true);
            float area_density =
                light_hit_area_density(c, before, hit.instance, hit.primitive, 0.5 * length(surface.normal));
            float light_pdf = area_density * hit.t * hit.t / max(-dot(surface.n, direction), 1e-8);
            weight = power_heuristic(last_bsdf_pdf, light_pdf);
        }
        float coat = coat_over_emission(material_clearcoat(c.layer_textures, material, surface.tex),
                                        dot(surface.n, direction));
        emitted = throughput.xyz * material_emission(material, surface.tex) * coat * weight;
    }
    if (bounce + 1 >= c.max_depth) {
        return false;
    }

    vec3 hit_point = surface.point;
    bool front = surface.front;
    vec3 facing = surface.facing;
    float epsilon = surface.epsilon;
    uint dimension_bounce = bounce + 1;
    Bsdf bsdf = surface_bsdf(c, surface);
    ShadingFrame frame = shading_frame(c, surface, direction, bsdf);
    vec3 tangent = frame.tangent;
    vec3 bitangent = frame.bitangent;
    vec3 shading = frame.normal;
    vec3 wo_local = frame.wo_local;

    // The continuation is sampled first, so that the light sample is taken from the point the
    // continuation leaves from: a light it hits then weighs its MIS against the same choice.
    vec2 lobe_and_roulette = path_pair(c, pixel, sample_index, dimension_bounce, uvec2(5u, RR_DIMENSION));
    vec3 u = vec3(path_pair(c, pixel, sample_index, dimension_bounce, uvec2(0u, 1u)), lobe_and_roulette.x);
    BsdfSample s;
    bool continues = bsdf_sample(bsdf, wo_local, front, u, s);
    vec3 outgoing = continues ? from_local(s.wi, tangent, bitangent, shading) : facing;
    bool below = dot(outgoing, facing) < 0.0;
    vec3 next_throughput = throughput.xyz * (continues ? s.weight : vec3(0.0));
    continues = continues && below == s.transmitted && !all(equal(next_throughput, vec3(0.0)));
    if (continues) {
        continues = russian_roulette(c, bounce + 1, lobe_and_roulette.y, roulette_radiance_scale(bsdf, front, below),
                                     next_throughput);
    }
    // Offset along the normal, to the side the new ray leaves from, against self-hits.
    vec3 next_origin = hit_point + (continues && below ? -facing : facing) * epsilon;
    // Lights behind a surface that only reflects send it nothing: its hemisphere is facing's.
    uint next_light_normal = encode_light_normal(bsdf.transmission > 0.0 ? vec3(0.0) : facing);

    vec3 light_numbers = path_light_numbers(c, pixel, sample_index, dimension_bounce);
    float u_light = light_numbers.z;
    vec2 u_point = light_numbers.xy;
    LightContext here = LightContext(next_origin, decode_light_normal(next_light_normal), true);
    LightSample light;
    if (bsdf_has_density(bsdf) && sample_direct_light(c, here, u_light, u_point, light)) {
        // The shadow ray starts off the surface on the light's side, and aims from there.
        vec3 towards = light.at_infinity ? light.point_or_direction : light.point_or_direction - hit_point;
        bool through = dot(towards, facing) < 0.0;
        vec3 shadow_origin = hit_point + (through ? -facing : facing) * epsilon;
        vec3 wl;
        float distance;
        vec3 arriving;
        float light_pdf;
        if (light_segment(c, light, shadow_origin, wl, distance, arriving, light_pdf)) {
            vec3 wi_local = to_local(wl, tangent, bitangent, shading);
            float bsdf_pdf;
            vec3 f = bsdf_eval(bsdf, wo_local, wi_local, front, bsdf_pdf);
            if ((wi_local.z < 0.0) == through && any(greaterThan(f, vec3(0.0)))) {
                // No BSDF sample can hit a punctual light: its samples count in full.
                float weight = light.delta ? 1.0 : power_heuristic(light_pdf, bsdf_pdf);
                vec3 contribution = throughput.xyz * f * arriving / light_pdf * weight;
                has_shadow = true;
                shadow = ShadowRay(shadow_origin, distance * (1.0 - 1e-4), wl, contribution);
            }
        }
    }

    if (!continues) {
        return false;
    }
    origin = next_origin;
    direction = outgoing;
    throughput = vec4(next_throughput, s.delta ? 0.0 : s.pdf);
    light_normal = next_light_normal;
    return true;
}

#endif
