#version 460
//
// The viewer's picture of the film: the running mean of the samples added so far, exposed,
// tone-mapped, sRGB-encoded into RGBA8 words, with the overlay's text laid over it. Runs in
// the same queue as the passes and reads the film where they left it: no copy of the image
// goes through the CPU. `film::tone_map` is its CPU twin (PNG output, tests).
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"

layout(local_size_x = DISPLAY_GROUP, local_size_y = DISPLAY_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    DisplayPush push;
};

layout(buffer_reference, scalar) readonly buffer FilmSums { uint64_t v[]; };
layout(buffer_reference, scalar) writeonly buffer Pixels { uint v[]; };
layout(buffer_reference, scalar) readonly buffer OverlayBits { uint v[]; };

// Stephen Hill's fit of the ACES reference rendering and output transforms for sRGB
// displays (BakingLab, ACES.hlsl): into ACES AP1 with the RRT's saturation, the curve, and
// back with the ODT's saturation.
vec3 aces_fitted(vec3 color) {
    vec3 v = vec3(dot(vec3(0.59719, 0.35458, 0.04823), color),
                  dot(vec3(0.07600, 0.90834, 0.01566), color),
                  dot(vec3(0.02840, 0.13383, 0.83777), color));
    v = (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.432951) + 0.238081);
    return vec3(dot(vec3(1.60475, -0.53108, -0.07367), v),
                dot(vec3(-0.10208, 1.10813, -0.00605), v),
                dot(vec3(-0.00327, -0.07276, 1.07602), v));
}

vec3 tone_map(vec3 color, uint op) {
    if (op == TONE_MAP_REINHARD) {
        return color / (1.0 + color);
    }
    if (op == TONE_MAP_ACES) {
        return aces_fitted(color);
    }
    return color;
}

float srgb_encode(float linear) {
    return linear <= 0.0031308 ? 12.92 * linear : 1.055 * pow(linear, 1.0 / 2.4) - 0.055;
}

bool overlay_bit(uvec2 p) {
    uint words_per_row = (push.overlay_width + 31) / 32;
    uint word = OverlayBits(push.overlay).v[p.y * words_per_row + p.x / 32];
    return ((word >> (p.x % 32)) & 1u) != 0;
}

void main() {
    uvec2 p = gl_GlobalInvocationID.xy;
    if (p.x >= push.width || p.y >= push.height) {
        return;
    }
    uint pixel = p.y * push.width + p.x;
    FilmSums film = FilmSums(push.film);
    vec3 mean = vec3(float(film.v[3 * pixel]), float(film.v[3 * pixel + 1]), float(film.v[3 * pixel + 2]))
                * push.mean_scale;
    vec3 display = clamp(tone_map(mean, push.tone_map), 0.0, 1.0);
    if (push.overlay != 0 && p.x < push.overlay_width && p.y < push.overlay_height) {
        display = overlay_bit(p) ? vec3(1.0) : display * 0.12;
    }
    uvec3 bytes = uvec3(round(vec3(srgb_encode(display.r), srgb_encode(display.g), srgb_encode(display.b)) * 255.0));
    Pixels(push.pixels).v[pixel] = bytes.r | (bytes.g << 8) | (bytes.b << 16) | (255u << 24);
}
