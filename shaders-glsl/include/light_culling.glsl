// Light culling at the shading point (src/lights/culling/): which cell a point is in (the
// screen tile it projects into, when its depth lies in a slice the tile's primary hits
// cover; else the world grid's cell around it), and the choice of one ranged light among
// those the cell lists, by what each sends the point unshadowed, with its probability.
//
// Cells hold every light whose range (or cone) touches them, conservatively, so a light a
// cell leaves out sends the point exactly zero: choosing among the listed ones is unbiased.
// The cell is a function of the point alone, so next-event estimation and the MIS weight of a
// BSDF-sampled hit (which asks for the probability from the point it left) find the same one.
#ifndef WAVETRACE_LIGHT_CULLING_GLSL
#define WAVETRACE_LIGHT_CULLING_GLSL

#include "common.glsl"
#include "light_tree.glsl"
#include "light_bvh.glsl"

#ifdef LIGHT_CULLING_SCALARISED
#extension GL_KHR_shader_subgroup_arithmetic : require
#endif

layout(buffer_reference, scalar) readonly buffer CullLights { GpuCullLight v[]; };
layout(buffer_reference, scalar) readonly buffer CullTiles { GpuLightTile v[]; };
layout(buffer_reference, scalar) readonly buffer CullWords { uint v[]; };

const uint NO_RANGED_LIGHT = 0xffffffffu;

// The slice of [z_min, z_max] that depth z falls in.
uint light_tile_bin(GpuLightTile tile, float z) {
    float extent = tile.z_max - tile.z_min;
    if (!(extent > 0.0)) {
        return 0u;
    }
    float bin = floor((z - tile.z_min) / extent * float(LIGHT_CULLING_DEPTH_BINS));
    return uint(clamp(bin, 0.0, float(LIGHT_CULLING_DEPTH_BINS - 1)));
}

// A point outside the world grid (which spans the scene's bounds, so no surface point is):
// its ranged light is chosen among all of them by power.
const uint LIGHT_CELL_OUTSIDE = 0xffffffffu;

// The cell whose list serves point p: tiles are numbered first, then the grid's cells.
uint light_cell(PassConstants c, vec3 p) {
    uint tiles = c.cull_tiles_x * c.cull_tiles_y;
    vec3 d = p - c.camera_origin;
    float z = dot(d, c.camera_forward);
    // An orthographic camera's tiles are boxes along its axis: no division by depth.
    bool orthographic = c.camera_orthographic != 0u;
    if (tiles > 0u && (z > 0.0 || orthographic)) {
        float w = orthographic ? 1.0 : z;
        vec2 image = vec2((dot(d, c.camera_right) / w / (c.camera_half_height * c.aspect) + 1.0) * 0.5 * float(c.width),
                          (1.0 - dot(d, c.camera_up) / w / c.camera_half_height) * 0.5 * float(c.height));
        if (image.x >= 0.0 && image.y >= 0.0 && image.x < float(c.width) && image.y < float(c.height)) {
            uvec2 tile = uvec2(image) / LIGHT_CULLING_TILE;
            uint index = tile.y * c.cull_tiles_x + tile.x;
            GpuLightTile bounds = CullTiles(c.cull_tiles).v[index];
            if (z >= bounds.z_min && z <= bounds.z_max && ((bounds.mask >> light_tile_bin(bounds, z)) & 1u) != 0u) {
                return index;
            }
        }
    }
    vec3 g = floor((p - c.cull_grid_lower) * c.cull_grid_scale);
    uvec3 dims = uvec3(c.cull_grid_x, c.cull_grid_y, c.cull_grid_z);
    if (!all(greaterThanEqual(g, vec3(0.0))) || !all(lessThan(g, vec3(dims)))) {
        return LIGHT_CELL_OUTSIDE;
    }
    uvec3 cell = uvec3(g);
    return tiles + (cell.z * c.cull_grid_y + cell.y) * c.cull_grid_x + cell.x;
}

// What `light` sends to the point of `ctx`, unshadowed, in luminance: intensity over squared
// distance, windowed by its range and its cone (light_segment's falloff), times the cosine at
// the receiver when it has a hemisphere. Zero exactly where the light adds nothing.
float ranged_light_importance(GpuCullLight light, LightContext ctx) {
    vec3 to_light = light.position - ctx.point;
    float distance2 = dot(to_light, to_light);
    if (!(distance2 > 0.0) || !(light.weight > 0.0)) {
        return 0.0;
    }
    float distance = sqrt(distance2);
    vec3 direction = to_light / distance;
    float r = distance / light.range;
    float importance = light.weight * clamp(1.0 - r * r * r * r, 0.0, 1.0) / distance2;
    // Point lights carry cos_outer < -1: no cone.
    if (light.cos_outer >= -1.0) {
        float t = clamp((dot(light.axis, -direction) - light.cos_outer) / max(light.cos_inner - light.cos_outer, 1e-3),
                        0.0, 1.0);
        importance *= t * t;
    }
    if (ctx.normal != vec3(0.0)) {
        importance *= max(dot(ctx.normal, direction), 0.0);
    }
    return importance;
}

// One light of a cell's walk: its importance added to `total`; true when the running sum
// passes `target` (>= 0) on it, with `chosen` its importance.
bool cell_visit(CullLights lights, uint light, LightContext ctx, float target, inout float total, out float chosen) {
    float w = ranged_light_importance(lights.v[light], ctx);
    total += w;
    chosen = w;
    return target >= 0.0 && w > 0.0 && target < total;
}

// The lights a cell lists: for each in increasing light order, its importance is summed
// (`target` < 0) or the light where the running sum passes `target` is returned. The order
// is the same whichever format holds the cell, so both choose alike.
uint cell_walk(PassConstants c, uint cell, LightContext ctx, float target, out float total, out float chosen) {
    total = 0.0;
    chosen = 0.0;
    CullLights lights = CullLights(c.cull_lights);
    if (c.light_culling == LIGHT_CULLING_LISTS) {
        uint count = CullWords(c.cull_counts).v[cell];
        uint base = cell * c.cull_list_capacity;
        for (uint i = 0u; i < count; ++i) {
            uint light = CullWords(c.cull_lists).v[base + i];
            if (cell_visit(lights, light, ctx, target, total, chosen)) {
                return light;
            }
        }
        return NO_RANGED_LIGHT;
    }
    // Bit arrays: the summary names the words that hold lights; only those are read.
    uint base = cell * c.cull_words;
    uint summary_base = cell * c.cull_summary_words;
#ifdef LIGHT_CULLING_SCALARISED
    // --cull-scalarise: lanes of one subgroup walk the union of their cells' words together,
    // each taking only the lights of its own cell (the seed's walk: one load for the subgroup
    // when the lanes share a cell, as a rasteriser's tile does; a path tracer's shading lanes
    // seldom do, and on the H100 this costs up to 2x the per-lane walk).
    if (c.cull_scalarise != 0u) {
        bool done = false;
        uint found = NO_RANGED_LIGHT;
        for (uint s = 0u; s < c.cull_summary_words; ++s) {
            uint my_words = done ? 0u : CullWords(c.cull_summaries).v[summary_base + s];
            uint words = subgroupOr(my_words);
            while (words != 0u) {
                uint word = s * 32u + findLSB(words);
                words &= words - 1u;
                uint mine = ((my_words >> (word % 32u)) & 1u) != 0u ? CullWords(c.cull_bits).v[base + word] : 0u;
                uint bits = subgroupOr(done ? 0u : mine);
                while (bits != 0u) {
                    uint bit = findLSB(bits);
                    bits &= bits - 1u;
                    uint light = word * 32u + bit;
                    float w;
                    if (!done && ((mine >> bit) & 1u) != 0u && cell_visit(lights, light, ctx, target, total, w)) {
                        chosen = w;
                        found = light;
                        done = true;
                    }
                }
            }
            if (subgroupMin(done ? 1u : 0u) == 1u) {
                break;
            }
        }
        return found;
    }
#endif
    for (uint s = 0u; s < c.cull_summary_words; ++s) {
        uint words = CullWords(c.cull_summaries).v[summary_base + s];
        while (words != 0u) {
            uint word = s * 32u + findLSB(words);
            words &= words - 1u;
            uint bits = CullWords(c.cull_bits).v[base + word];
            while (bits != 0u) {
                uint bit = findLSB(bits);
                bits &= bits - 1u;
                uint light = word * 32u + bit;
                if (cell_visit(lights, light, ctx, target, total, chosen)) {
                    return light;
                }
            }
        }
    }
    return NO_RANGED_LIGHT;
}

// The chance that next-event estimation at a point of `cell` picks a ranged light: none when
// the cell lists none, else their share of the power.
float ranged_share(PassConstants c, uint cell) {
    return cell != LIGHT_CELL_OUTSIDE && CullWords(c.cull_counts).v[cell] == 0u ? 0.0 : c.ranged_choice;
}

// One ranged light for the point of `ctx` in `cell` (NO_RANGED_LIGHT when none of the listed
// lights sends it anything), with the probability of that choice. A cell whose list
// overflowed, and a point outside the grid, choose among all ranged lights by power.
uint ranged_light_choose(PassConstants c, uint cell, LightContext ctx, float u, out float probability) {
    probability = 0.0;
    bool overflowed =
        c.light_culling == LIGHT_CULLING_LISTS && CullWords(c.cull_counts).v[cell] > c.cull_list_capacity;
    if (cell == LIGHT_CELL_OUTSIDE || overflowed) {
        uint light = light_cdf_sample(c.ranged_cdf, c.ranged_count, u);
        probability = light_cdf_probability(c.ranged_cdf, c.ranged_count, light);
        return light;
    }
    float total;
    float chosen;
    cell_walk(c, cell, ctx, -1.0, total, chosen);
    if (!(total > 0.0)) {
        return NO_RANGED_LIGHT;
    }
    // The same sums in the same order reach `total` again, so u < 1 stops on a light.
    float partial;
    uint light = cell_walk(c, cell, ctx, u * total, partial, chosen);
    probability = chosen / total;
    return light;
}

#endif
