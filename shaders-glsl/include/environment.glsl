// The environment: light from infinitely far away in every direction the scene leaves open,
// either one constant radiance or an equirectangular map. Map coordinates follow Mitsuba 3
// (u = atan2(x, -z) / 2pi, v = acos(y) / pi, +Y up) after turning the map by
// `environment_rotation` about +Y. Radiance is interpolated bilinearly between texel centres
// (u wraps, v clamps at the poles), as Cycles and Mitsuba do, so a map seen directly is not
// blocky. A map is sampled by a pixel drawn from the light tree over its pixels (weights: the
// interpolated luminance's integral over the pixel x sin theta, environment/weights.comp),
// then a uniform point inside the pixel; the density that gives a direction is the same
// stored tree's probability over the pixel's solid angle, so hits and samples agree for MIS.
// The integral covers the 3 x 3 texels whose interpolation reaches into a pixel, so every
// direction with radiance has a density.
#ifndef WAVETRACE_ENVIRONMENT_GLSL
#define WAVETRACE_ENVIRONMENT_GLSL

#include "common.glsl"
#include "light_tree.glsl"

layout(buffer_reference, scalar) readonly buffer EnvironmentTexels { vec3 v[]; };

const float ENVIRONMENT_PI = 3.14159265358979;
// How far a shadow ray towards the environment reaches: past any scene, as extension rays.
const float ENVIRONMENT_DISTANCE = 1e30;

// World direction to map (u, v), and the map-space y (cos theta).
vec2 environment_uv(PassConstants c, vec3 d, out float cos_theta) {
    float s = sin(c.environment_rotation);
    float k = cos(c.environment_rotation);
    vec3 m = vec3(k * d.x - s * d.z, d.y, s * d.x + k * d.z);
    cos_theta = clamp(m.y, -1.0, 1.0);
    float u = atan(m.x, -m.z) * (0.5 / ENVIRONMENT_PI);
    return vec2(u - floor(u), acos(cos_theta) / ENVIRONMENT_PI);
}

vec3 environment_direction(PassConstants c, vec2 uv) {
    float theta = uv.y * ENVIRONMENT_PI;
    float phi = uv.x * 2.0 * ENVIRONMENT_PI;
    vec3 m = vec3(sin(theta) * sin(phi), cos(theta), -sin(theta) * cos(phi));
    float s = sin(c.environment_rotation);
    float k = cos(c.environment_rotation);
    return vec3(k * m.x + s * m.z, m.y, -s * m.x + k * m.z);
}

uint environment_pixel(PassConstants c, vec2 uv) {
    uint x = min(uint(uv.x * float(c.environment_width)), c.environment_width - 1);
    uint y = min(uint(uv.y * float(c.environment_height)), c.environment_height - 1);
    return y * c.environment_width + x;
}

// The map at (u, v), interpolated between the four nearest texel centres.
vec3 environment_interpolated(PassConstants c, vec2 uv) {
    int width = int(c.environment_width);
    int height = int(c.environment_height);
    vec2 p = uv * vec2(width, height) - 0.5;
    vec2 corner = floor(p);
    vec2 t = p - corner;
    // corner.x is in [-1, width - 1] for u in [0, 1] (the clamp keeps a NaN direction's index
    // inside the map), so one wrap each way suffices, without an integer division.
    int x0 = clamp(int(corner.x), -1, width - 1);
    int xa = x0 < 0 ? x0 + width : x0;
    int xb = x0 + 1 >= width ? x0 + 1 - width : x0 + 1;
    int ya = clamp(int(corner.y), 0, height - 1) * width;
    int yb = clamp(int(corner.y) + 1, 0, height - 1) * width;
    EnvironmentTexels texels = EnvironmentTexels(c.environment_texels);
    vec3 upper = mix(texels.v[ya + xa], texels.v[ya + xb], t.x);
    vec3 lower = mix(texels.v[yb + xa], texels.v[yb + xb], t.x);
    return mix(upper, lower, t.y);
}

// Radiance arriving along -d, from direction d.
vec3 environment_radiance(PassConstants c, vec3 d) {
    if (c.environment_kind == ENVIRONMENT_CONSTANT) {
        return c.environment_color;
    }
    if (c.environment_kind != ENVIRONMENT_MAP) {
        return vec3(0.0);
    }
    float cos_theta;
    vec2 uv = environment_uv(c, d, cos_theta);
    return environment_interpolated(c, uv) * c.environment_color;
}

// The solid-angle density with which environment_sample picks d.
float environment_pdf(PassConstants c, vec3 d) {
    if (c.environment_kind == ENVIRONMENT_CONSTANT) {
        return 1.0 / (4.0 * ENVIRONMENT_PI);
    }
    if (c.environment_kind != ENVIRONMENT_MAP) {
        return 0.0;
    }
    float cos_theta;
    vec2 uv = environment_uv(c, d, cos_theta);
    float sin_theta = sqrt(max(0.0, 1.0 - cos_theta * cos_theta));
    uint pixels = c.environment_width * c.environment_height;
    float p = light_tree_probability(c.environment_tree, pixels, c.environment_tree_arity, environment_pixel(c, uv));
    return sin_theta > 0.0 ? p * float(pixels) / (2.0 * ENVIRONMENT_PI * ENVIRONMENT_PI * sin_theta) : 0.0;
}

// A direction towards the environment, with its radiance and density. False when none.
bool environment_sample(PassConstants c, float u_pixel, vec2 u, out vec3 d, out vec3 radiance, out float pdf) {
    d = vec3(0.0, 1.0, 0.0);
    radiance = vec3(0.0);
    pdf = 0.0;
    if (c.environment_kind == ENVIRONMENT_CONSTANT) {
        float z = 1.0 - 2.0 * u.x;
        float r = sqrt(max(0.0, 1.0 - z * z));
        float phi = 2.0 * ENVIRONMENT_PI * u.y;
        d = vec3(r * cos(phi), z, r * sin(phi));
        radiance = c.environment_color;
        pdf = 1.0 / (4.0 * ENVIRONMENT_PI);
        return true;
    }
    if (c.environment_kind != ENVIRONMENT_MAP) {
        return false;
    }
    uint pixels = c.environment_width * c.environment_height;
    uint pixel = light_tree_sample(c.environment_tree, pixels, c.environment_tree_arity, u_pixel);
    if (pixel >= pixels) {
        return false;
    }
    vec2 uv = (vec2(pixel % c.environment_width, pixel / c.environment_width) + u)
              / vec2(c.environment_width, c.environment_height);
    d = environment_direction(c, uv);
    pdf = environment_pdf(c, d);
    radiance = environment_radiance(c, d);
    return pdf > 0.0;
}

#endif
