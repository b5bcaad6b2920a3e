// What every wavefront kernel sees: the pass constants and typed views of the buffers they
// name. Path state is structure-of-arrays, indexed by path slot.
#ifndef WAVETRACE_WAVEFRONT_GLSL
#define WAVETRACE_WAVEFRONT_GLSL

#include "common.glsl"
#include "scene.glsl"

layout(buffer_reference, scalar) readonly buffer ConstantsRef { PassConstants c; };
layout(buffer_reference, scalar) buffer Vec4s { vec4 v[]; };
layout(buffer_reference, scalar) buffer Vec3s { vec3 v[]; };
layout(buffer_reference, scalar) buffer Uints { uint v[]; };
// A path's hit as stored: the trace's HitRecord without the mesh, which only the sort key
// needs and route_hit uses on the spot (path_state.rs on packing).
struct PathHit {
    float t;
    uint instance;
    uint primitive;
};

layout(buffer_reference, scalar) buffer Hits { PathHit v[]; };
layout(buffer_reference, scalar) coherent buffer Queues { QueueState q; };
layout(buffer_reference, scalar) buffer Counters { KernelCounters v[]; };

layout(push_constant, scalar) uniform PushBlock {
    WavefrontPush push;
};

PassConstants constants() {
    return ConstantsRef(push.constants).c;
}

// WAVEFRONT_GROUP, INACTIVE_PATH, SAMPLE_BITS and SAMPLE_MASK come from interface.glsl.

// The arguments of an indirect dispatch of workgroups of `group` threads covering `count`.
uvec4 groups_for(uint count, uint group) {
    return uvec4((count + group - 1) / group, 1, 1, 0);
}

uint path_sample(uint packed) {
    return packed & SAMPLE_MASK;
}

uint path_bounce(uint packed) {
    return packed >> SAMPLE_BITS;
}

// The pixel of camera path `index` (the sample is index / crop pixels): camera paths are
// handed out sample by sample and, within a sample, tile by tile over the crop (row-major
// tiles of tile_size pixels square, row-major pixels inside). The pixel is the whole image's.
// The CPU twin is wavefront::tiled_pixel.
uint tiled_pixel(PassConstants c, uint within_sample) {
    uint tile = c.tile_size;
    uint tile_row = within_sample / (tile * c.crop_width);
    uint rest = within_sample - tile_row * tile * c.crop_width;
    uint tile_height = min(tile, c.crop_height - tile_row * tile);
    uint tile_column = rest / (tile * tile_height);
    rest -= tile_column * tile * tile_height;
    uint tile_width = min(tile, c.crop_width - tile_column * tile);
    uint x = c.crop_x + tile_column * tile + rest % tile_width;
    uint y = c.crop_y + tile_row * tile + rest / tile_width;
    return y * c.width + x;
}

// Where pixel (x, y) of the crop (counted from its corner) comes in tile order: tiled_pixel's
// inverse. The twin of wavefront/kernels.rs's `tiled_index`.
uint tiled_index(PassConstants c, uint x, uint y) {
    uint tile = c.tile_size;
    uint tile_row = y / tile;
    uint tile_column = x / tile;
    uint tile_height = min(tile, c.crop_height - tile_row * tile);
    uint tile_width = min(tile, c.crop_width - tile_column * tile);
    return tile_row * tile * c.crop_width + tile_column * tile * tile_height + (y - tile_row * tile) * tile_width
           + (x - tile_column * tile);
}

// Camera paths a sample has: the crop's pixels.
uint64_t crop_pixels(PassConstants c) {
    return uint64_t(c.crop_width) * c.crop_height;
}

// The megakernel's pixel for launch index `index`: row-major over the crop.
uint crop_pixel(PassConstants c, uint index) {
    uint row = index / c.crop_width;
    return (c.crop_y + row) * c.width + c.crop_x + (index - row * c.crop_width);
}

#endif
