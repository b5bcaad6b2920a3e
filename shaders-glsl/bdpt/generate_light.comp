#version 460
//
// Starts the batch's light subpaths, one per camera path (slot i's light subpath pairs with
// slot i's camera subpath) or one per group of pixels (light_subpath_pixel), from a point and
// direction of emission (emission.glsl) with the MIS scalars of their start, and queues them
// for extend.
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
    uint sample_index;
    uint pixel;
    bool wanted = true;
    if (metropolis(c)) {
        // Camera paths are (iteration, proposal) in Metropolis light transport: the proposal
        // stands where the pixel does, and its path length and strategy are chosen here.
        uint proposals = mlt_control(c).proposals;
        sample_index = uint(camera_path / proposals);
        pixel = uint(camera_path - uint64_t(sample_index) * proposals);
        PathNumbers numbers = path_numbers(c, pixel, sample_index);
        uvec2 strategy = mlt_strategy(mlt_path_length(c, pixel), mlt_number(c, numbers.ids, 0));
        Uints(c.mlt_strategies).v[slot] = strategy.x | (strategy.y << 16);
        MltRecords(c.mlt_records).v[pixel] = MltRecord(vec3(0.0), 0u);
        // s = 0 and 1 need no light subpath (next-event estimation samples its own light).
        wanted = strategy.x >= 2;
    } else {
        uint64_t pixels = crop_pixels(c);
        uint64_t pass_sample = camera_path / pixels;
        sample_index = c.first_sample + uint(pass_sample);
        pixel = tiled_pixel(c, uint(camera_path - pass_sample * pixels));
        // At depth 1 only emitters seen directly count: no light subpath is needed.
        wanted = c.max_depth > 1;
    }
    // A camera path that shares its group's light subpath with a slot of the batch traces none
    // (shade_camera reads the tracer's slot only where groups are shared).
    if (c.light_share > 1) {
        uint tracer = light_subpath_tracer(c, slot, pixel, sample_index);
        Uints(c.light_subpath_slots).v[slot] = tracer;
        wanted = wanted && tracer == slot;
    }
    PathNumbers numbers = path_numbers(c, light_subpath_pixel(c, pixel), sample_index);
    uint bounce = LIGHT_SUBPATH_BOUNCE;
    float u_light = path_random(c, numbers, bounce, 0);
    vec2 u_point = vec2(path_random(c, numbers, bounce, 1), path_random(c, numbers, bounce, 2));
    vec2 u_direction = vec2(path_random(c, numbers, bounce, 3), path_random(c, numbers, bounce, 4));
    EmissionSample e;
    bool started = wanted && sample_emission(c, u_light, u_point, u_direction, e);
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
    store_ray_sort_key(c, c.extend_keys, extend_slot, e.origin, e.direction);
}
