#version 460
// variant: tiles_bits TILES FORMAT_BITS
// variant: tiles_lists TILES
// variant: grid_bits FORMAT_BITS
// variant: grid_lists
// variant: scatter_prepare_bits TILES SCATTER_PREPARE FORMAT_BITS
// variant: scatter_prepare_lists TILES SCATTER_PREPARE
// variant: scatter_tiles_bits TILES FORMAT_BITS SCATTER
// variant: scatter_grid_bits FORMAT_BITS SCATTER
// variant: scatter_tiles_lists TILES SCATTER
// variant: scatter_grid_lists SCATTER
// variant: scatter_tiles_bits_narrow TILES FORMAT_BITS SCATTER SCATTER_NARROW
// variant: scatter_grid_bits_narrow FORMAT_BITS SCATTER SCATTER_NARROW
// variant: scatter_tiles_lists_narrow TILES SCATTER SCATTER_NARROW
// variant: scatter_grid_lists_narrow SCATTER SCATTER_NARROW
// variant: sort_tiles TILES SORT_LISTS
// variant: sort_grid SORT_LISTS
//
// Light culling: one workgroup per cell (a screen tile with TILES, else a cell of the world
// grid) tests every light of finite range against the cell, conservatively, and writes the
// ones that can touch it as a flat bit array (FORMAT_BITS: one bit per light, set with
// atomicOr in shared memory and exported a word per thread, as Wicked Engine after Drobot
// 2017 does, with a bit per non-empty word above it) or as a compacted index list (one
// shared atomic per subgroup, ranked by ballot; then sorted, so that lists come out in light
// order whatever order subgroups appended in, and renders are deterministic). A tile first
// reduces its primary hits' depths (from the depth kernel's pixel corners) to its depth
// bounds and 2.5D mask.
//
// Cells can also be filled the other way round (SCATTER, `--cull-build lights`; Drobot 2017
// bins lights into cells so): one workgroup per light visits the cells of its footprint (a
// screen rectangle of tiles, or a box of grid cells) and, where the same test passes, sets its
// bit with global atomics or appends its index with a global atomic on the cell's count. A
// light then costs its footprint, not every cell. Bits come out the same whichever order the
// atomics land in; lists are put back in light order by SORT_LISTS, a workgroup per cell.
// SCATTER_PREPARE first writes each light's footprint on the tiles, queues the tiles past the
// first step of the widest (culling/mod.rs's SPLIT_FROM) for the tiles' scatter's first
// `split_pool` workgroups, writes the tiles' depth bounds and masks (a workgroup of
// BOUNDS_GROUP threads a tile, each reducing BOUNDS_RUN pixels of a row) and empties every
// cell.
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_ballot : require

#include "common.glsl"

#ifdef SCATTER_PREPARE
// Pixels of a row each thread reduces before the workgroup does (a quarter of the threads'
// loads of a pixel a thread; 8 pixels, or 8 tiles a workgroup, measured no faster).
const uint BOUNDS_RUN = 4u;
const uint BOUNDS_GROUP = LIGHT_CULLING_TILE * LIGHT_CULLING_TILE / BOUNDS_RUN;
layout(local_size_x = BOUNDS_GROUP) in;
#elif defined(SCATTER_NARROW)
// A narrow scatter workgroup where lights are many (culling/mod.rs's NARROW_SCATTER_*): then
// they fill the device whatever their size, and a wide workgroup would mostly idle on the many
// small footprints; where they are few, the light near the camera, which spans most tiles, sets
// the launch's length, and a wide workgroup takes it in fewer steps.
layout(local_size_x = LIGHT_CULLING_NARROW_GROUP) in;
#else
layout(local_size_x = LIGHT_CULLING_GROUP) in;
#endif

layout(push_constant, scalar) uniform PushBlock {
    LightCullingPush push;
};

layout(buffer_reference, scalar) readonly buffer Lights { GpuCullLight v[]; };
layout(buffer_reference, scalar) readonly buffer Spheres { vec4 v[]; };
layout(buffer_reference, scalar) readonly buffer Depths { float v[]; };
layout(buffer_reference, scalar) writeonly buffer Tiles { GpuLightTile v[]; };
layout(buffer_reference, scalar) readonly buffer TileBounds { GpuLightTile v[]; };
layout(buffer_reference, scalar) writeonly buffer Words { uint v[]; };
layout(buffer_reference, scalar) buffer AtomicWords { uint v[]; };
layout(buffer_reference, scalar) readonly buffer ReadWords { uint v[]; };
layout(buffer_reference, scalar) buffer Footprints { uvec4 v[]; };
// The chunks of wide footprints past each light's first: (light, its footprint's first column
// | first row << 16, its columns | the chunk's tiles << 16, the chunk's first tile), all a
// pool workgroup needs before it loads the tiles' bounds. `queued` may pass the capacity; a
// light whose chunks did not fit takes them all itself.
layout(buffer_reference, scalar) buffer SplitQueue {
    uint queued;
    uint finished;
    uint pad0;
    uint pad1;
    uvec4 entries[];
};
// An entry reserved past the queue's capacity by a light that then took its chunks itself.
const uint SPLIT_NONE = 0xffffffffu;

#if !defined(SCATTER)
shared uint shared_count;
#endif
#if defined(SCATTER) || defined(SCATTER_PREPARE)
#elif defined(FORMAT_BITS)
shared uint shared_bits[LIGHT_CULLING_SHARED_WORDS];
// A bit per word of shared_bits that holds any light, set with the light's bit (hits are few,
// so the second atomic costs less than a pass over the words after them).
shared uint shared_summary[LIGHT_CULLING_SHARED_WORDS / 32];
#else
shared uint shared_list[LIGHT_CULLING_MAX_LIST];
#endif

// The cell: its box, its bounding sphere (for cones) and, for a tile, its four side planes
// (inward normals; w: the offset from the camera's origin along the normal, 0 for a pinhole's
// planes, which pass through it) and its depth bounds and mask.
vec3 box_lower;
vec3 box_upper;
vec3 sphere_center;
float sphere_radius;
#ifdef TILES
#ifndef SCATTER
shared uint shared_z_min;
shared uint shared_z_max;
shared uint shared_mask;
#endif
vec4 planes[4];
GpuLightTile bounds;

// As light_culling.glsl's light_tile_bin.
uint tile_bin(float z) {
    float extent = bounds.z_max - bounds.z_min;
    if (!(extent > 0.0)) {
        return 0u;
    }
    float bin = floor((z - bounds.z_min) / extent * float(LIGHT_CULLING_DEPTH_BINS));
    return uint(clamp(bin, 0.0, float(LIGHT_CULLING_DEPTH_BINS - 1)));
}

// Bits lo..hi of a word.
uint bin_span(uint lo, uint hi) {
    uint upto_hi = hi >= 31u ? 0xffffffffu : (1u << (hi + 1u)) - 1u;
    return upto_hi & ~((1u << lo) - 1u);
}

// Where image column x (row y) lies across the view: on the plane at distance 1 for a
// pinhole, in scene units on the camera's plane for an orthographic camera.
float image_x(float x) {
    return (2.0 * x / float(push.width) - 1.0) * push.camera_half_height * push.aspect;
}

float image_y(float y) {
    return (1.0 - 2.0 * y / float(push.height)) * push.camera_half_height;
}

#ifndef SCATTER
// The interval a pixel's corners' hits span, widened by the margin (so points offset off a
// surface stay inside); false when no corner hit anything.
bool pixel_interval(float corners[4], out float lo, out float hi) {
    lo = uintBitsToFloat(0x7f800000u);
    hi = 0.0;
    for (int i = 0; i < 4; ++i) {
        if (corners[i] >= 0.0) {
            lo = min(lo, corners[i]);
            hi = max(hi, corners[i]);
        }
    }
    if (!(lo <= hi)) {
        return false;
    }
    lo = max(lo - push.margin, 0.0);
    hi += push.margin;
    return true;
}

// The slices of `bounds` a pixel marks in the tile's mask. A pixel whose corners lie within
// two slices marks the slices between them (a surface across the pixel, its interval [lo,
// hi]); one whose corners are further apart straddles a silhouette and marks only its corners'
// own slices, so the gap behind an edge stays out of the mask.
bool pixel_within_two_slices(float lo, float hi) {
    return hi - lo <= 2.0 * (bounds.z_max - bounds.z_min) / float(LIGHT_CULLING_DEPTH_BINS);
}

#ifdef SCATTER_PREPARE
// A pixel corner's slices of `bounds`: the first and last its hit reaches, widened by the
// margin; without a hit, the last and the first, which span nothing.
uvec2 corner_bins(float depth) {
    if (!(depth >= 0.0)) {
        return uvec2(LIGHT_CULLING_DEPTH_BINS - 1u, 0u);
    }
    return uvec2(tile_bin(max(depth - push.margin, 0.0)), tile_bin(depth + push.margin));
}

// A pixel's slices from its corners' (corner_bins). The slice of a depth never decreases with
// it, so those of the interval run from the corners' least to their greatest. A thread of
// several pixels looks each corner up once for the pixels around it, and a pixel on a
// silhouette then costs no lookups of its own (against a lookup of each end and eight on a
// silhouette: the tiles' cull at 10^3 lights and 1080p on the H200, 0.0247 -> 0.0238 ms; with
// a pixel a thread, as in the cells' build, it cost more than it saved: 0.0475 -> 0.0481).
uint pixel_bins(uvec2 corners[4], float lo, float hi) {
    if (pixel_within_two_slices(lo, hi)) {
        uint first = min(min(corners[0].x, corners[1].x), min(corners[2].x, corners[3].x));
        uint last = max(max(corners[0].y, corners[1].y), max(corners[2].y, corners[3].y));
        return bin_span(first, last);
    }
    return bin_span(corners[0].x, corners[0].y) | bin_span(corners[1].x, corners[1].y) |
           bin_span(corners[2].x, corners[2].y) | bin_span(corners[3].x, corners[3].y);
}
#else
// A pixel's slices from its corners' depths.
uint pixel_bins(float corners[4], float lo, float hi) {
    if (pixel_within_two_slices(lo, hi)) {
        return bin_span(tile_bin(lo), tile_bin(hi));
    }
    uint corner_bins = 0u;
    for (int i = 0; i < 4; ++i) {
        if (corners[i] >= 0.0) {
            corner_bins |= bin_span(tile_bin(max(corners[i] - push.margin, 0.0)), tile_bin(corners[i] + push.margin));
        }
    }
    return corner_bins;
}
#endif

float corner_depth(uint x, uint y) {
    return Depths(push.corner_depths).v[y * (push.width + 1u) + x];
}

#ifdef SCATTER_PREPARE
const uint PIXELS = BOUNDS_RUN;
#else
const uint PIXELS = 1u;
#endif

// The tile's depth bounds and mask from its pixels' corners into `bounds` and the tiles'
// buffer; all threads of the workgroup call it, each for PIXELS pixels of a row.
void tile_reduce_bounds(uint tile) {
    uint tx = tile % push.tiles_x;
    uint ty = tile / push.tiles_x;
    uint runs = LIGHT_CULLING_TILE / PIXELS;
    uint x = tx * LIGHT_CULLING_TILE + gl_LocalInvocationID.x % runs * PIXELS;
    uint y = ty * LIGHT_CULLING_TILE + gl_LocalInvocationID.x / runs;
    if (gl_LocalInvocationID.x == 0u) {
        shared_z_min = 0x7f800000u;
        shared_z_max = 0u;
        shared_mask = 0u;
    }
    barrier();
    // A run's corners: the row above its pixels and the row below, PIXELS + 1 each.
    float above[PIXELS + 1u];
    float below[PIXELS + 1u];
    for (uint i = 0u; i <= PIXELS; ++i) {
        bool inside = x + i <= push.width && y < push.height;
        above[i] = inside ? corner_depth(x + i, y) : -1.0;
        below[i] = inside ? corner_depth(x + i, y + 1u) : -1.0;
    }
    float lo[PIXELS];
    float hi[PIXELS];
    bool hit[PIXELS];
    float run_lo = uintBitsToFloat(0x7f800000u);
    float run_hi = 0.0;
    for (uint i = 0u; i < PIXELS; ++i) {
        float corners[4] = float[4](above[i], above[i + 1u], below[i], below[i + 1u]);
        hit[i] = x + i < push.width && pixel_interval(corners, lo[i], hi[i]);
        if (hit[i]) {
            run_lo = min(run_lo, lo[i]);
            run_hi = max(run_hi, hi[i]);
        }
    }
    if (run_lo <= run_hi) {
        atomicMin(shared_z_min, floatBitsToUint(run_lo));
        atomicMax(shared_z_max, floatBitsToUint(run_hi));
    }
    barrier();
    bounds = GpuLightTile(uintBitsToFloat(shared_z_min), uintBitsToFloat(shared_z_max), 0u, 0u);
    uint bins = 0u;
#ifdef SCATTER_PREPARE
    uvec2 above_bins[PIXELS + 1u];
    uvec2 below_bins[PIXELS + 1u];
    for (uint i = 0u; i <= PIXELS; ++i) {
        above_bins[i] = corner_bins(above[i]);
        below_bins[i] = corner_bins(below[i]);
    }
    for (uint i = 0u; i < PIXELS; ++i) {
        if (hit[i]) {
            uvec2 corners[4] = uvec2[4](above_bins[i], above_bins[i + 1u], below_bins[i], below_bins[i + 1u]);
            bins |= pixel_bins(corners, lo[i], hi[i]);
        }
    }
#else
    for (uint i = 0u; i < PIXELS; ++i) {
        if (hit[i]) {
            bins |= pixel_bins(float[4](above[i], above[i + 1u], below[i], below[i + 1u]), lo[i], hi[i]);
        }
    }
#endif
    if (bins != 0u) {
        atomicOr(shared_mask, bins);
    }
    barrier();
    bounds.mask = push.depth_mask != 0u ? shared_mask : 0xffffffffu;
    if (gl_LocalInvocationID.x == 0u) {
        Tiles(push.tiles).v[tile] = bounds;
    }
}
#endif

// The tile's four planes and box from `bounds`. False for a tile with no primary hit.
bool tile_frustum(uint tile) {
    if (!(bounds.z_min <= bounds.z_max)) {
        return false;
    }
    uint tx = tile % push.tiles_x;
    uint ty = tile / push.tiles_x;
    float x0 = image_x(float(tx * LIGHT_CULLING_TILE));
    float x1 = image_x(float(min((tx + 1u) * LIGHT_CULLING_TILE, push.width)));
    float y0 = image_y(float(ty * LIGHT_CULLING_TILE));
    float y1 = image_y(float(min((ty + 1u) * LIGHT_CULLING_TILE, push.height)));
    bool orthographic = push.camera_orthographic != 0u;
    if (orthographic) {
        // Parallel rays: the tile is a box across the view, its sides x0 <= x <= x1 and
        // y1 <= y <= y0 in the camera's frame.
        planes[0] = vec4(push.camera_right, x0);
        planes[1] = vec4(-push.camera_right, -x1);
        planes[2] = vec4(-push.camera_up, -y0);
        planes[3] = vec4(push.camera_up, y1);
    } else {
        planes[0] = vec4(normalize(push.camera_right - x0 * push.camera_forward), 0.0);
        planes[1] = vec4(normalize(x1 * push.camera_forward - push.camera_right), 0.0);
        planes[2] = vec4(normalize(y0 * push.camera_forward - push.camera_up), 0.0);
        planes[3] = vec4(normalize(push.camera_up - y1 * push.camera_forward), 0.0);
    }
    box_lower = vec3(uintBitsToFloat(0x7f800000u));
    box_upper = -box_lower;
    for (int i = 0; i < 8; ++i) {
        float z = (i & 1) != 0 ? bounds.z_max : bounds.z_min;
        float sx = (i & 2) != 0 ? x1 : x0;
        float sy = (i & 4) != 0 ? y1 : y0;
        float spread = orthographic ? 1.0 : z;
        vec3 corner = push.camera_origin + z * push.camera_forward + spread * (sx * push.camera_right + sy * push.camera_up);
        box_lower = min(box_lower, corner);
        box_upper = max(box_upper, corner);
    }
    return true;
}
#else
bool grid_volume(uint cell) {
    uvec3 g = uvec3(cell % push.grid_x, (cell / push.grid_x) % push.grid_y, cell / (push.grid_x * push.grid_y));
    box_lower = push.grid_lower + vec3(g) / push.grid_scale;
    box_upper = push.grid_lower + vec3(g + 1u) / push.grid_scale;
    return true;
}
#endif

#ifdef SCATTER
// The light a scatter workgroup marks cells for, loaded once up front.
GpuCullLight scatter_light;
#endif

// Whether the light can send anything to a point of the cell: its range sphere (widened by
// the margin) meets the cell's box (and, for a tile, lies inside its four planes, meets its
// depth bounds and a slice its mask holds); a spot light tested for its cone also has the
// cell's bounding sphere reach into its cone.
// Every workgroup reads every light: the sphere comes from a packed array of 16 bytes a
// light, and the rest of the light only when a spot light's cone is to be tested.
bool touches(uint index, vec4 sphere) {
    vec3 position = sphere.xyz;
    float r = sphere.w + push.margin;
    vec3 nearest = clamp(position, box_lower, box_upper);
    vec3 gap = nearest - position;
    if (dot(gap, gap) > r * r) {
        return false;
    }
#ifdef TILES
    vec3 d = position - push.camera_origin;
    for (int i = 0; i < 4; ++i) {
        if (dot(d, planes[i].xyz) - planes[i].w < -r) {
            return false;
        }
    }
    float z = dot(d, push.camera_forward);
    if (z + r < bounds.z_min || z - r > bounds.z_max) {
        return false;
    }
    if ((bin_span(tile_bin(z - r), tile_bin(z + r)) & bounds.mask) == 0u) {
        return false;
    }
#endif
#ifdef SCATTER
    GpuCullLight light = scatter_light;
#else
    GpuCullLight light = Lights(push.lights).v[index];
#endif
    if (light.cone != 0u) {
        // The distance from the sphere's centre to the cone's side, in the plane through the
        // axis: a lower bound on its distance to the cone (Wronski 2017), so the test errs
        // only towards keeping.
        vec3 v = sphere_center - light.position;
        float along = dot(v, light.axis);
        float across = sqrt(max(dot(v, v) - along * along, 0.0));
        float sin_outer = sqrt(max(1.0 - light.cos_outer * light.cos_outer, 0.0));
        float reach = sphere_radius + push.margin;
        if (light.cos_outer * across - along * sin_outer > reach || along < -reach) {
            return false;
        }
    }
    return true;
}

#if defined(TILES) && (defined(SCATTER) || defined(SCATTER_PREPARE))
// The columns (or rows) of tiles from image coordinate t_lo to t_hi (across the view, as
// image_x and image_y give them), widened by a tile either way.
ivec2 tiles_between(float t_lo, float t_hi, float half_extent, float pixels, uint tiles, bool flip) {
    float p_lo = (t_lo / half_extent + 1.0) * 0.5 * pixels;
    float p_hi = (t_hi / half_extent + 1.0) * 0.5 * pixels;
    if (flip) {
        float p = pixels - p_hi;
        p_hi = pixels - p_lo;
        p_lo = p;
    }
    float edge = float(LIGHT_CULLING_TILE);
    float first = floor(clamp(p_lo, -edge, pixels + edge) / edge) - 1.0;
    float last = floor(clamp(p_hi, -edge, pixels + edge) / edge) + 1.0;
    return ivec2(max(int(first), 0), min(int(last), int(tiles) - 1));
}

// The first and last column (or row) of tiles whose wedge between two planes through the
// camera a sphere can reach. `a` is the sphere centre's coordinate across the wedges, `z`
// its depth (more than `r`, so the whole sphere is in front), `r` its radius; `half_extent`
// is the tangent at the image's edge along that axis, `pixels` the image's size along it, and
// `flip` says the axis counts pixels the other way (rows, from the top). The tangent planes
// from the camera to the sphere bound the tangents it spans: tan(alpha +- beta), alpha the
// centre's angle and beta = asin(r / distance). Widened by a tile either way against
// rounding: touches() decides each tile of the span exactly.
ivec2 tile_span(float a, float z, float r, float half_extent, float pixels, uint tiles, bool flip) {
    float l = sqrt(max(a * a + z * z - r * r, 0.0));
    if (!(z * l - a * r > 0.0) || !(z * l + a * r > 0.0)) {
        return ivec2(0, int(tiles) - 1);
    }
    float t_lo = (a * l - r * z) / (z * l + a * r);
    float t_hi = (a * l + r * z) / (z * l - a * r);
    return tiles_between(t_lo, t_hi, half_extent, pixels, tiles, flip);
}

// tile_span for an orthographic camera: the sphere spans a - r to a + r across the view,
// `half_extent` being half the image's width (or height) in scene units.
ivec2 parallel_span(float a, float r, float half_extent, float pixels, uint tiles, bool flip) {
    return tiles_between(a - r, a + r, half_extent, pixels, tiles, flip);
}

// A light's footprint on the tiles: uvec4(first column | first row << 16, columns, tiles, 0);
// no tiles when its sphere is out of view.
uvec4 tile_footprint(vec4 sphere) {
    float r = sphere.w + push.margin;
    vec3 d = sphere.xyz - push.camera_origin;
    float z = dot(d, push.camera_forward);
    ivec2 columns = ivec2(0, int(push.tiles_x) - 1);
    ivec2 rows = ivec2(0, int(push.tiles_y) - 1);
    if (push.camera_orthographic != 0u) {
        columns = parallel_span(dot(d, push.camera_right), r, push.camera_half_height * push.aspect, float(push.width),
                                push.tiles_x, false);
        rows = parallel_span(dot(d, push.camera_up), r, push.camera_half_height, float(push.height), push.tiles_y, true);
    } else if (z > r * 1.001) {
        // A sphere that reaches the camera's plane spans every tile it can (planes through the
        // camera bound nothing behind it).
        columns = tile_span(dot(d, push.camera_right), z, r, push.camera_half_height * push.aspect, float(push.width),
                            push.tiles_x, false);
        rows = tile_span(dot(d, push.camera_up), z, r, push.camera_half_height, float(push.height), push.tiles_y, true);
    }
    if (columns.x > columns.y || rows.x > rows.y) {
        return uvec4(0u);
    }
    uint width = uint(columns.y - columns.x + 1);
    return uvec4(uint(columns.x) | uint(rows.x) << 16u, width, width * uint(rows.y - rows.x + 1), 0u);
}
#endif

#if !defined(SCATTER) && !defined(SCATTER_PREPARE) && !defined(SORT_LISTS)
#ifndef FORMAT_BITS
// One ballot per subgroup: the lanes that hit are counted with one shared atomic, and each
// gets its place among them.
uint append(bool hit) {
    uvec4 ballot = subgroupBallot(hit);
    uint base = 0u;
    if (subgroupElect()) {
        base = atomicAdd(shared_count, subgroupBallotBitCount(ballot));
    }
    return subgroupBroadcastFirst(base) + subgroupBallotExclusiveBitCount(ballot);
}
#endif

// A thread tests its lights this many at a time, their spheres loaded together: one memory
// round trip then serves several tests instead of each waiting on its own.
const uint LIGHTS_IN_FLIGHT = 4u;

// Records the lights of [first, end) that touch the cell: their bits (FORMAT_BITS, the chunk
// starting at first) or their places in the list; all threads of the workgroup call it.
// Returns how many this thread found.
uint cull_lights(uint first, uint end) {
    uint found = 0u;
    for (uint batch = first; batch < end; batch += LIGHTS_IN_FLIGHT * LIGHT_CULLING_GROUP) {
        vec4 spheres[LIGHTS_IN_FLIGHT];
        for (uint k = 0u; k < LIGHTS_IN_FLIGHT; ++k) {
            uint light = batch + k * LIGHT_CULLING_GROUP + gl_LocalInvocationID.x;
            spheres[k] = light < end ? Spheres(push.spheres).v[light] : vec4(0.0);
        }
        for (uint k = 0u; k < LIGHTS_IN_FLIGHT; ++k) {
            uint light = batch + k * LIGHT_CULLING_GROUP + gl_LocalInvocationID.x;
            bool hit = light < end && touches(light, spheres[k]);
            found += hit ? 1u : 0u;
#ifdef FORMAT_BITS
            if (hit) {
                uint word = (light - first) / 32u;
                atomicOr(shared_bits[word], 1u << (light % 32u));
                atomicOr(shared_summary[word / 32u], 1u << (word % 32u));
            }
#else
            uint slot = append(hit);
            if (hit && slot < push.list_capacity) {
                shared_list[slot] = light;
            }
#endif
        }
    }
    return found;
}

#ifdef FORMAT_BITS
// Zeroes the bits of a chunk of this many words and their summary.
void clear_chunk(uint words) {
    for (uint w = gl_LocalInvocationID.x; w < words; w += LIGHT_CULLING_GROUP) {
        shared_bits[w] = 0u;
    }
    for (uint w = gl_LocalInvocationID.x; w * 32u < words; w += LIGHT_CULLING_GROUP) {
        shared_summary[w] = 0u;
    }
}
#endif

void main() {
    uint cell = gl_WorkGroupID.x + gl_WorkGroupID.y * push.groups_x;
    uint tiles = push.tiles_x * push.tiles_y;
#ifdef TILES
    if (cell >= tiles) {
        return;
    }
    uint out_cell = cell;
#else
    if (cell >= push.grid_x * push.grid_y * push.grid_z) {
        return;
    }
    uint out_cell = tiles + cell;
#endif
    uint thread = gl_LocalInvocationID.x;
    if (thread == 0u) {
        shared_count = 0u;
    }
#ifdef FORMAT_BITS
    uint chunk_lights = LIGHT_CULLING_SHARED_WORDS * 32u;
    clear_chunk((min(push.count, chunk_lights) + 31u) / 32u);
#endif
    // The shared state above is cleared before the volume's barriers, which publish it.
#ifdef TILES
    tile_reduce_bounds(cell);
    bool any = tile_frustum(cell);
#else
    bool any = grid_volume(cell);
    barrier();
#endif
    sphere_center = 0.5 * (box_lower + box_upper);
    sphere_radius = 0.5 * length(box_upper - box_lower);
#ifdef FORMAT_BITS
    for (uint first = 0u; first < push.count; first += chunk_lights) {
        uint end = min(first + chunk_lights, push.count);
        uint chunk_words = (end - first + 31u) / 32u;
        if (first != 0u) {
            clear_chunk(chunk_words);
            barrier();
        }
        uint found = any ? cull_lights(first, end) : 0u;
        if (found != 0u) {
            atomicAdd(shared_count, found);
        }
        barrier();
        for (uint w = thread; w < chunk_words; w += LIGHT_CULLING_GROUP) {
            Words(push.bits).v[out_cell * push.words + first / 32u + w] = shared_bits[w];
        }
        for (uint w = thread; w * 32u < chunk_words; w += LIGHT_CULLING_GROUP) {
            Words(push.summaries).v[out_cell * push.summary_words + first / 1024u + w] = shared_summary[w];
        }
        if (end < push.count) {
            barrier();
        }
    }
    if (thread == 0u) {
        Words(push.counts).v[out_cell] = shared_count;
    }
#else
    if (any) {
        cull_lights(0u, push.count);
    }
    barrier();
    uint count = shared_count;
    if (thread == 0u) {
        Words(push.counts).v[out_cell] = count;
    }
    if (count <= push.list_capacity) {
        // Rank sort: each entry's place is the number of smaller ones (indices are distinct).
        for (uint i = thread; i < count; i += LIGHT_CULLING_GROUP) {
            uint light = shared_list[i];
            uint rank = 0u;
            for (uint j = 0u; j < count; ++j) {
                rank += shared_list[j] < light ? 1u : 0u;
            }
            Words(push.lists).v[out_cell * push.list_capacity + rank] = light;
        }
    }
#endif
}
#elif defined(SORT_LISTS)
// A cell's list, filled by the lights in the order their atomics landed, put in light order
// (the rank sort of the cells' build); an overflowed list is left as it is, unread.
void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * push.groups_x;
    uint tiles = push.tiles_x * push.tiles_y;
#ifdef TILES
    uint cell = group;
    if (cell >= tiles) {
        return;
    }
#else
    uint cell = tiles + group;
    if (group >= push.grid_x * push.grid_y * push.grid_z) {
        return;
    }
#endif
    uint count = ReadWords(push.counts).v[cell];
    if (count < 2u || count > push.list_capacity) {
        return;
    }
    uint base = cell * push.list_capacity;
    for (uint i = gl_LocalInvocationID.x; i < count; i += LIGHT_CULLING_GROUP) {
        shared_list[i] = ReadWords(push.lists).v[base + i];
    }
    barrier();
    for (uint i = gl_LocalInvocationID.x; i < count; i += LIGHT_CULLING_GROUP) {
        uint light = shared_list[i];
        uint rank = 0u;
        for (uint j = 0u; j < count; ++j) {
            rank += shared_list[j] < light ? 1u : 0u;
        }
        Words(push.lists).v[base + rank] = light;
    }
}
#elif defined(SCATTER_PREPARE)
// Each light's tile footprint, and the chunks (`split_chunk` tiles, a step of the tiles'
// scatter workgroup) past the first of each wide one queued for the scatter's pool: the light
// nearest the camera can span most of the image, and its workgroup alone would otherwise take
// its thousands of tiles a step at a time while the rest of the launch has long finished.
void write_footprints(uint thread, uint threads) {
    SplitQueue queue = SplitQueue(push.split_queue);
    for (uint light = thread; light < push.count; light += threads) {
        uvec4 footprint = tile_footprint(Spheres(push.spheres).v[light]);
        footprint.w = footprint.z;
        uint chunks = push.split_chunk == 0u ? 1u : (footprint.z + push.split_chunk - 1u) / push.split_chunk;
        if (chunks >= max(push.split_from, 2u)) {
            uint queued = chunks - 1u;
            uint base = atomicAdd(queue.queued, queued);
            if (base + queued <= push.split_capacity) {
                for (uint chunk = 1u; chunk < chunks; ++chunk) {
                    uint first = chunk * push.split_chunk;
                    uint tiles = min(footprint.z - first, push.split_chunk);
                    queue.entries[base + chunk - 1u] = uvec4(light, footprint.x, footprint.y | tiles << 16u, first);
                }
                footprint.w = push.split_chunk;
            } else {
                for (uint entry = base; entry < push.split_capacity; ++entry) {
                    queue.entries[entry] = uvec4(SPLIT_NONE, 0u, 0u, 0u);
                }
            }
        }
        Footprints(push.footprints).v[light] = footprint;
    }
}

// The lights' footprints, the tiles' depth bounds and masks, and every cell emptied by all
// threads of the launch together: its count, and for bit arrays the words the last cull's
// summaries flag, which are the only ones that can hold bits (the arrays are zeroed once when
// made, and every cull's summaries flag each word it sets), and the summaries; not every word:
// at 10^5 lights a cell has 3,125 words and a few dozen lights.
void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * push.groups_x;
    uint threads = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
    uint thread = group * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
    write_footprints(thread, threads);
    if (group < push.tiles_x * push.tiles_y) {
        tile_reduce_bounds(group);
    }
    uint cells = push.tiles_x * push.tiles_y + push.grid_x * push.grid_y * push.grid_z;
#ifdef FORMAT_BITS
    for (uint i = thread; i < cells * push.summary_words; i += threads) {
        uint flagged = AtomicWords(push.summaries).v[i];
        if (flagged != 0u) {
            uint first = i / push.summary_words * push.words + i % push.summary_words * 32u;
            while (flagged != 0u) {
                Words(push.bits).v[first + findLSB(flagged)] = 0u;
                flagged &= flagged - 1u;
            }
            AtomicWords(push.summaries).v[i] = 0u;
        }
    }
#endif
    for (uint i = thread; i < cells; i += threads) {
        Words(push.counts).v[i] = 0u;
    }
}
#else

// Gives `out_cell` (a tile, or tiles + a grid cell) the light's bit or index where the light
// touches it; the cell's volume is set.
void mark(uint light, vec4 sphere, uint out_cell) {
    sphere_center = 0.5 * (box_lower + box_upper);
    sphere_radius = 0.5 * length(box_upper - box_lower);
    if (!touches(light, sphere)) {
        return;
    }
#ifdef FORMAT_BITS
    uint word = light / 32u;
    atomicOr(AtomicWords(push.bits).v[out_cell * push.words + word], 1u << (light % 32u));
    atomicOr(AtomicWords(push.summaries).v[out_cell * push.summary_words + word / 32u], 1u << (word % 32u));
    atomicAdd(AtomicWords(push.counts).v[out_cell], 1u);
#else
    uint slot = atomicAdd(AtomicWords(push.counts).v[out_cell], 1u);
    if (slot < push.list_capacity) {
        Words(push.lists).v[out_cell * push.list_capacity + slot] = light;
    }
#endif
}

#ifdef TILES
// Tiles [first, end) of a footprint of `columns` from its first tile `corner` (column | row <<
// 16), a workgroup's width at a time.
void mark_tiles(uint light, vec4 sphere, uint corner, uint columns, uint first, uint end) {
    for (uint i = first + gl_LocalInvocationID.x; i < end; i += gl_WorkGroupSize.x) {
        uint cell = ((corner >> 16u) + i / columns) * push.tiles_x + (corner & 0xffffu) + i % columns;
        bounds = TileBounds(push.tiles).v[cell];
        if (tile_frustum(cell)) {
            mark(light, sphere, cell);
        }
    }
}

// A pool workgroup: every split_pool-th queued chunk from its own; the last of the pool to
// finish empties the queue for the next cull.
void take_queued_chunks(uint pool_group) {
    SplitQueue queue = SplitQueue(push.split_queue);
    uint available = min(queue.queued, push.split_capacity);
    for (uint take = pool_group; take < available; take += push.split_pool) {
        uvec4 entry = queue.entries[take];
        if (entry.x == SPLIT_NONE) {
            continue;
        }
        vec4 sphere = Spheres(push.spheres).v[entry.x];
        scatter_light = Lights(push.lights).v[entry.x];
        mark_tiles(entry.x, sphere, entry.y, entry.z & 0xffffu, entry.w, entry.w + (entry.z >> 16u));
    }
    // Every thread of the workgroup has read the queue's length before it can be emptied:
    // without the barrier a subgroup that ran ahead empties it under the others' feet.
    barrier();
    if (gl_LocalInvocationID.x == 0u && atomicAdd(queue.finished, 1u) == push.split_pool - 1u) {
        atomicExchange(queue.queued, 0u);
        atomicExchange(queue.finished, 0u);
    }
}
#endif

// After the pool, one workgroup per light: the cells of its footprint that pass touches() get
// its bit or its index (of a split footprint, its first chunk).
void main() {
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * push.groups_x;
#ifdef TILES
    if (group < push.split_pool) {
        take_queued_chunks(group);
        return;
    }
    uint light = group - push.split_pool;
#else
    uint light = group;
#endif
    if (light >= push.count) {
        return;
    }
    vec4 sphere = Spheres(push.spheres).v[light];
    scatter_light = Lights(push.lights).v[light];
#ifdef TILES
    uvec4 footprint = Footprints(push.footprints).v[light];
    mark_tiles(light, sphere, footprint.x, footprint.y, 0u, footprint.w);
#else
    float r = sphere.w + push.margin;
    ivec3 dims = ivec3(push.grid_x, push.grid_y, push.grid_z);
    vec3 lo = clamp(floor((sphere.xyz - r - push.grid_lower) * push.grid_scale) - 1.0, vec3(-1.0), vec3(dims));
    vec3 hi = clamp(floor((sphere.xyz + r - push.grid_lower) * push.grid_scale) + 1.0, vec3(-1.0), vec3(dims));
    ivec3 first = max(ivec3(lo), ivec3(0));
    ivec3 last = min(ivec3(hi), dims - 1);
    if (any(greaterThan(first, last))) {
        return;
    }
    uvec3 extent = uvec3(last - first + 1);
    uint span = extent.x * extent.y * extent.z;
    uint cell_base = push.tiles_x * push.tiles_y;
    for (uint i = gl_LocalInvocationID.x; i < span; i += gl_WorkGroupSize.x) {
        uvec3 g = uvec3(first) + uvec3(i % extent.x, (i / extent.x) % extent.y, i / (extent.x * extent.y));
        uint cell = (g.z * push.grid_y + g.y) * push.grid_x + g.x;
        grid_volume(cell);
        mark(light, sphere, cell_base + cell);
    }
#endif
}
#endif
