#version 460
//
// Starts the batch's light subpaths, one per camera path (slot i's light subpath pairs with
// slot i's camera subpath), from a point and direction of emission (emission.glsl) with the
// MIS scalars of their start, and queues them for extend.
#extension GL_GOOGLE_include_directive : require

#define SUBGROUP_APPEND
#include "bdpt.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint slot = gl_GlobalInvocationID.x;
    if (slot >= queues.q.new_paths) {
        return;
    }
    uint64_t camera_path = queues.q.first_new_camera_path + slot;
    uint64_t pixels = crop_pixels(c);
    uint64_t pass_sample = camera_path / pixels;
    uint sample_index = c.first_sample + uint(pass_sample);
    uint pixel = tiled_pixel(c, uint(camera_path - pass_sample * pixels));
    uint bounce = LIGHT_SUBPATH_BOUNCE;
    float u_light = wt_random(c.seed, pixel, sample_index, bounce, 0);
    vec2 u_point = vec2(wt_random(c.seed, pixel, sample_index, bounce, 1), wt_random(c.seed, pixel, sample_index, bounce, 2));
    vec2 u_direction =
        vec2(wt_random(c.seed, pixel, sample_index, bounce, 3), wt_random(c.seed, pixel, sample_index, bounce, 4));
    EmissionSample e;
    bool started = sample_emission(c, u_light, u_point, u_direction, e);
    Uints(c.light_vertex_counts).v[slot] = 0;
    Uints(c.path_pixels).v[slot] = pixel;
    Uints(c.path_samples).v[slot] = sample_index;
    uint extend_slot = enqueue(QUEUE_EXTEND, started);
    count_subpath_rays(c, 0, started);
    if (!started) {
        return;
    }
    // A light at infinity is chosen by direction and starts on a disk across it: its MIS form
    // swaps the two densities (src/integrator/bdpt/mis.rs), and its first segment has no length.
    SubpathMis mis = e.at_infinity ? mis_leave_light(e.direction_pdf, e.position_pdf, 1.0, e.hittable)
                                   : mis_leave_light(e.position_pdf, e.direction_pdf, e.cos_out, e.hittable);
    Vec3s(c.ray_origins).v[slot] = e.origin + e.normal * offset_epsilon(e.origin);
    Vec3s(c.ray_directions).v[slot] = e.direction;
    // w, while the first segment is under way: 1 from a light at infinity, minus the range of a
    // punctual light that has one (shade_light applies its window).
    Vec4s(c.throughputs).v[slot] = vec4(e.weight, e.at_infinity ? 1.0 : -e.range);
    Vec2s(c.subpath_mis).v[slot] = vec2(mis.d_vcm, mis.d_vc);
    Uints(c.extend_queue).v[extend_slot] = slot;
}
