#version 460
//
// One vertex of every light subpath in the shade queue (all at the same segment): the MIS
// scalars take the segment in, the vertex is stored for the camera subpaths' connections, the
// camera sees it (t = 1: a splat, queued as a shadow path to the camera with its pixel), and
// the adjoint BSDF's sample continues the subpath while a longer one could still connect.
#extension GL_GOOGLE_include_directive : require

#define SUBGROUP_APPEND
#define WORKGROUP_APPEND
#include "bdpt.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes past the queue's end stay for the workgroup's appends, with nothing to append.
    bool shading = index < launched(QUEUE_SHADE);
    uint path = 0;
    uint pixel = 0;
    uint packed_sample = 0;
    // Segments so far; the subpath has one vertex more (s).
    uint segments = 0;
    vec3 origin = vec3(0.0);
    vec3 direction = vec3(0.0);
    vec4 throughput = vec4(0.0);
    SubpathMis mis = SubpathMis(0.0, 0.0);
    bool splat = false;
    vec3 splat_from = vec3(0.0);
    // Blockers count up to the near plane only: camera rays pass what lies before it.
    vec3 splat_to = vec3(0.0);
    vec3 splat_contribution = vec3(0.0);
    uint splat_target = 0;
    bool continues = false;
    if (shading) {
        path = Uints(c.shade_queue).v[index];
        pixel = Uints(c.path_pixels).v[path];
        packed_sample = Uints(c.path_samples).v[path];
        uint sample_index = path_sample(packed_sample);
        segments = path_bounce(packed_sample) + 1;
        // The subpath of the pixel's group, which the group's first pixel alone splats.
        uint group_pixel = light_subpath_pixel(c, pixel);
        PathNumbers numbers = path_numbers(c, group_pixel, sample_index);
        PathHit stored = Hits(c.hits).v[path];
        origin = Vec3s(c.ray_origins).v[path];
        direction = Vec3s(c.ray_directions).v[path];
        throughput = Vec4s(c.throughputs).v[path];
        vec2 carried = Vec2s(c.subpath_mis).v[path];
        mis = SubpathMis(carried.x, carried.y);

        uint splat_pixel = 0;
        // A miss ends the light subpath: no camera subpath can connect to nothing.
        if (stored.t >= 0.0) {
            HitRecord hit = HitRecord(stored.t, stored.instance, stored.primitive, 0);
            SurfaceHit surface = surface_hit(c, hit, origin, direction);
            if (HAS_VOLUMES && !surface.front) {
                throughput.xyz *= exp(-surface.material.absorption * hit.t);
            }
            // w: on the first segment, what generate_light put there (below); from the first
            // vertex on, the throughput's largest component there, the scale of Russian roulette.
            bool first = segments == 1;
            if (first && throughput.w < 0.0) {
                // KHR_lights_punctual's range window, as next-event estimation applies it (lights.glsl).
                float r = hit.t / -throughput.w;
                throughput.xyz *= clamp(1.0 - r * r * r * r, 0.0, 1.0);
            }
            mis_arrive(mis, first && throughput.w > 0.0 ? 1.0 : hit.t, abs(dot(surface.n, direction)));
            float roulette_scale = first ? max3(throughput.xyz) : throughput.w;
            Bsdf bsdf = surface_bsdf(c, surface);
            ShadingFrame frame = shading_frame(c, surface, direction, bsdf);
            BdptVertex v = bdpt_vertex(surface, frame, bsdf, direction);
            store_light_vertex(c, path, segments - 1, v, throughput.xyz, mis);
            Uints(c.light_vertex_counts).v[path] = segments;

            uint s = segments + 1;
            vec2 image;
            float cos_camera;
            if (group_pixel == pixel && bsdf_has_density(bsdf) && strategy_wanted(c, path, s, 1)
                && camera_takes_light_paths(c) && camera_project(c, surface.point, image, cos_camera)) {
                vec3 to_camera = c.camera_origin - surface.point;
                float distance2 = dot(to_camera, to_camera);
                vec3 w = to_camera / sqrt(distance2);
                float pdf;
                float back_pdf;
                vec3 f = vertex_eval(v, w, true, pdf, back_pdf);
                // Over the render's light subpaths, this estimates each pixel's mean radiance
                // (the film divides by the samples per pixel) once the camera's density over the
                // image is divided by their number per camera path, which also counts them in
                // MIS (only where groups share them: a light subpath each keeps its bits).
                float camera_pdf = camera_direction_pdf(c, cos_camera);
                if (c.light_share > 1) {
                    camera_pdf /= c.light_subpath_ratio;
                }
                float camera_area_pdf = camera_pdf * geometric_cos(v, w) / distance2;
                float weight = strategy_weight(c, path, s, 1, mis_camera_connection_weight(mis, camera_area_pdf, back_pdf));
                splat_contribution = throughput.xyz * f * (camera_pdf / distance2) * weight;
                splat = any(greaterThan(splat_contribution, vec3(0.0)));
                splat_from = segment_end(v, w, sqrt(distance2));
                splat_to = camera_near_point(c, splat_from);
                splat_pixel = min(uint(image.y), c.height - 1) * c.width + min(uint(image.x), c.width - 1);
            }

            // The next vertex, one segment on, still makes a path of at most max_depth with the camera.
            // A Metropolis proposal's light subpath ends at its strategy's s vertices.
            bool needed = !metropolis(c) || segments + 1 < slot_strategy(c, path).x;
            if (segments + 2 <= c.max_depth && needed) {
                uint bounce = LIGHT_SUBPATH_BOUNCE + segments;
                vec3 u = vec3(path_random(c, numbers, bounce, 0), path_random(c, numbers, bounce, 1),
                              path_random(c, numbers, bounce, 2));
                vec3 next = throughput.xyz;
                continues = continue_subpath(v, frame.wo_local, u, true, next, mis, origin, direction)
                            && russian_roulette(c, segments, path_random(c, numbers, bounce, 3),
                                                roulette_scale, next);
                throughput = vec4(next, roulette_scale);
            }
        }
        splat_target = splat_pixel | SPLAT_PIXEL;
        if (metropolis(c)) {
            if (splat) {
                MltRecords(c.mlt_records).v[pixel].pixel = splat_pixel;
            }
            splat_target = shadow_target(c, pixel);
        }
    }
    uvec2 slots = enqueue_extend_and_connect(continues, splat);
    store_shadow(c, slots.y, splat, splat_from, splat_to, splat_contribution, splat_target);
    count_strategy(c, segments + 1, 1, splat);
    uint extend_slot = slots.x;
    count_subpath_rays(c, 0, continues);
    if (continues) {
        Vec3s(c.ray_origins).v[path] = origin;
        Vec3s(c.ray_directions).v[path] = direction;
        Vec4s(c.throughputs).v[path] = throughput;
        Vec2s(c.subpath_mis).v[path] = vec2(mis.d_vcm, mis.d_vc);
        Uints(c.path_samples).v[path] = packed_sample + (1u << SAMPLE_BITS);
        Uints(c.extend_queue).v[extend_slot] = path;
        store_ray_sort_key(c, c.extend_keys, extend_slot, origin, direction);
    }
}
