#version 460
//
// Starts the batch's camera subpaths, after their light subpaths are done: the path tracer's
// camera ray for (pixel, sample) with the MIS scalars of the camera, queued for extend.
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
    uint pixel = Uints(c.path_pixels).v[slot];
    uint sample_index = path_sample(Uints(c.path_samples).v[slot]);
    vec3 origin = c.camera_origin;
    vec3 direction = c.camera_forward;
    bool started = true;
    if (metropolis(c)) {
        // The image position is a primary-sample dimension, uniform over the whole image. A
        // splat (t = 1) needs no camera subpath: its record has the pixel shade_light saw.
        started = slot_strategy(c, slot).y >= 2;
        if (started) {
            PathNumbers numbers = path_numbers(c, pixel, sample_index);
            vec2 image =
                vec2(mlt_number(c, numbers.ids, 1) * float(c.width), mlt_number(c, numbers.ids, 2) * float(c.height));
            camera_ray_through(c, image, origin, direction);
            MltRecords(c.mlt_records).v[pixel].pixel =
                min(uint(image.y), c.height - 1) * c.width + min(uint(image.x), c.width - 1);
        }
    } else {
        camera_ray(c, pixel, sample_index, origin, direction);
    }
    uint extend_slot = enqueue(QUEUE_EXTEND, started);
    count_subpath_rays(c, 1, started);
    if (!started) {
        return;
    }
    // A light vertex seen by the camera lands anywhere on the image, so the camera's density
    // of directions is over the whole image, and the light tracing strategy has as many
    // samples as there are light subpaths (one per camera path unless groups share them).
    float direction_pdf = camera_direction_pdf(c, dot(direction, c.camera_forward));
    SubpathMis mis = mis_leave_camera(direction_pdf, 1.0);
    if (c.light_share > 1) {
        mis = mis_leave_camera(direction_pdf, c.light_subpath_ratio);
    }
    if (!camera_takes_light_paths(c)) {
        // No light subpath meets parallel rays: the strategies that end at the camera are
        // out of every sum of weights, as those that end on a point light are.
        mis = SubpathMis(0.0, 0.0);
    }
    Vec3s(c.ray_origins).v[slot] = origin;
    Vec3s(c.ray_directions).v[slot] = direction;
    Vec4s(c.throughputs).v[slot] = vec4(1.0, 1.0, 1.0, 0.0);
    Vec2s(c.subpath_mis).v[slot] = vec2(mis.d_vcm, mis.d_vc);
    Uints(c.path_samples).v[slot] = sample_index;
    Uints(c.extend_queue).v[extend_slot] = slot;
    store_ray_sort_key(c, c.extend_keys, extend_slot, origin, direction);
}
