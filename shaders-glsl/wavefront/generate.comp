#version 460
//
// The second half of a regeneration: the kept paths, now in the first slots, and the next
// camera paths after them make up the extend queue, in slot order. Camera paths are handed
// out sample by sample and, within a sample, tile by tile (row-major tiles of tile_size
// pixels square, row-major pixels inside), so that neighbouring slots start neighbouring rays.
#extension GL_GOOGLE_include_directive : require

#include "path.glsl"
#include "queues.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint slot = gl_GlobalInvocationID.x;
    uint kept = queues.q.kept_paths;
    if (slot >= kept + queues.q.new_paths) {
        return;
    }
    Uints(c.extend_queue).v[slot] = slot;
    if (slot < kept) {
        if (c.ray_sort_buckets > 0) {
            store_ray_sort_key(c, c.extend_keys, slot, Vec3s(c.ray_origins).v[slot], Vec3s(c.ray_directions).v[slot]);
        }
        return;
    }
    uint64_t camera_path = queues.q.first_new_camera_path + (slot - kept);
    uint64_t pixels = crop_pixels(c);
    uint64_t pass_sample = camera_path / pixels;
    uint sample_index = c.first_sample + uint(pass_sample);
    uint pixel = tiled_pixel(c, uint(camera_path - pass_sample * pixels));
    vec3 origin;
    vec3 direction;
    camera_ray(c, pixel, sample_index, origin, direction);
    Vec3s(c.ray_origins).v[slot] = origin;
    Vec3s(c.ray_directions).v[slot] = direction;
    // w = 0: no BSDF density yet, so emission seen directly counts in full.
    Vec4s(c.throughputs).v[slot] = vec4(1.0, 1.0, 1.0, 0.0);
    Uints(c.path_pixels).v[slot] = pixel;
    Uints(c.path_samples).v[slot] = sample_index;
    store_ray_sort_key(c, c.extend_keys, slot, origin, direction);
}
