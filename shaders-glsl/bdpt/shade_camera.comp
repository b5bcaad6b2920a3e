#version 460
//
// One vertex of every camera subpath in the shade queue (all at the same segment): what it
// finds on an emitter or in the environment (s = 0), next-event estimation (s = 1) and a
// connection to each vertex of its light subpath (s >= 2), each weighted by MIS from the two
// subpaths' carried scalars and queued as a shadow path; then the path tracer's BSDF sample.
#extension GL_GOOGLE_include_directive : require

#define SUBGROUP_APPEND
#define WORKGROUP_APPEND
#include "bdpt.glsl"
#include "film.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

// What a camera subpath that reached the light at its end (s = 0) adds, over what it carries.
// Seen straight from the camera (one segment) it counts in full: the light point is never
// connected to the camera (strategy (1, 1)), as the path tracer has it.
float light_hit_weight(PassConstants c, uint path, SubpathMis mis, uint t, float position_pdf, float emission_pdf) {
    float weight = t == 2 ? 1.0 : mis_light_hit_weight(mis, position_pdf, emission_pdf);
    return strategy_weight(c, path, 0, t, weight);
}

// A connection of the camera vertex `v` to the light subpath's i-th stored vertex (s = i + 2),
// wanted where it adds light; only the first `connectable` vertices may be connected.
struct Connection {
    bool wanted;
    vec3 from;
    vec3 to;
    vec3 contribution;
};

Connection light_vertex_connection(PassConstants c, uint path, uint light_slot, uint i, uint t, uint connectable,
                                   BdptVertex v, vec3 throughput, vec3 absorption, SubpathMis mis) {
    uint s = i + 2;
    Connection connection = Connection(false, vec3(0.0), vec3(1.0), vec3(0.0));
    if (i >= connectable || !strategy_wanted(c, path, s, t)) {
        return connection;
    }
    LightVertex stored_light = load_light_vertex(c, light_slot, i);
    BdptVertex l = bdpt_vertex_of(stored_light);
    vec3 between = l.position - v.position;
    float distance2 = dot(between, between);
    float distance = sqrt(distance2);
    vec3 w = between / distance;
    float camera_pdf;
    float camera_back_pdf;
    float light_pdf;
    float light_back_pdf;
    vec3 f_camera = vertex_eval(v, w, false, camera_pdf, camera_back_pdf);
    vec3 f_light = vertex_eval(l, -w, true, light_pdf, light_back_pdf);
    vec3 unweighted = throughput * f_camera * f_light * stored_light.throughput / distance2;
    // A segment into this material's volume (through its front, or back in from its inside
    // face) is absorbed along its length, as extension segments are.
    if (HAS_VOLUMES && (dot(w, v.facing) < 0.0) == v.front) {
        unweighted *= exp(-absorption * distance);
    }
    float weight = mis_connection_weight(SubpathMis(stored_light.d_vcm, stored_light.d_vc),
                                         camera_pdf * geometric_cos(l, w) / distance2, light_back_pdf, mis,
                                         light_pdf * geometric_cos(v, w) / distance2, camera_back_pdf);
    connection.contribution = unweighted * strategy_weight(c, path, s, t, weight);
    connection.wanted = (stored_light.flags & LIGHT_VERTEX_CONNECTABLE) != 0
                        && any(greaterThan(connection.contribution, vec3(0.0)));
    connection.from = segment_end(v, w, distance);
    connection.to = segment_end(l, -w, distance);
    return connection;
}

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes past the queue's end stay for the workgroup's appends, with nothing to append.
    bool shading = index < launched(QUEUE_SHADE);
    uint path = 0;
    uint pixel = 0;
    // Camera subpath vertices with this one: the camera and bounce + 1 surfaces.
    uint t = 0;
    vec4 throughput = vec4(0.0);
    SubpathMis mis = SubpathMis(0.0, 0.0);
    vec3 emitted = vec3(0.0);
    bool connects = false;
    BdptVertex v;
    vec3 absorption = vec3(0.0);
    bool has_shadow = false;
    ShadowRay shadow = ShadowRay(vec3(0.0), 0.0, vec3(0.0), vec3(0.0));
    bool continues = false;
    vec3 next_origin;
    vec3 next_direction;
    if (shading) {
        path = Uints(c.shade_queue).v[index];
        pixel = Uints(c.path_pixels).v[path];
        uint packed_sample = Uints(c.path_samples).v[path];
        uint sample_index = path_sample(packed_sample);
        uint bounce = path_bounce(packed_sample);
        t = bounce + 2;
        PathNumbers numbers = path_numbers(c, pixel, sample_index);
        PathHit stored = Hits(c.hits).v[path];
        vec3 origin = Vec3s(c.ray_origins).v[path];
        vec3 direction = Vec3s(c.ray_directions).v[path];
        throughput = Vec4s(c.throughputs).v[path];
        vec2 carried = Vec2s(c.subpath_mis).v[path];
        mis = SubpathMis(carried.x, carried.y);

        if (stored.t < 0.0) {
            if (HAS_ENVIRONMENT && c.environment_kind != ENVIRONMENT_NONE) {
                float position_pdf = c.environment_choice * environment_pdf(c, direction);
                float emission_pdf = position_pdf / (PI * c.scene_radius * c.scene_radius);
                emitted = throughput.xyz * environment_radiance(c, direction)
                          * light_hit_weight(c, path, mis, t, position_pdf, emission_pdf);
            }
        } else {
            HitRecord hit = HitRecord(stored.t, stored.instance, stored.primitive, 0);
            SurfaceHit surface = surface_hit(c, hit, origin, direction);
            GpuMaterial material = surface.material;
            absorption = material.absorption;
            if (HAS_VOLUMES && !surface.front) {
                throughput.xyz *= exp(-absorption * hit.t);
            }
            // A camera ray starts on the near plane; its vertex is the pinhole behind that.
            float arrived = bounce == 0u ? hit.t + camera_ray_start(c, direction) : hit.t;
            mis_arrive(mis, arrived, abs(dot(surface.n, direction)));
            if (surface.front && luminance(material.emission) > 0.0) {
                float position_pdf = light_hit_area_density(c, power_context(), hit.instance, hit.primitive, 0.5 * length(surface.normal));
                float emission_pdf = position_pdf * max(-dot(surface.n, direction), 0.0) / PI;
                float coat = coat_over_emission(material_clearcoat(c.layer_textures, material, surface.tex),
                                                dot(surface.n, direction));
                emitted = throughput.xyz * material_emission(material, surface.tex) * coat
                          * light_hit_weight(c, path, mis, t, position_pdf, emission_pdf);
            }
            if (bounce + 1 < c.max_depth) {
                Bsdf bsdf = surface_bsdf(c, surface);
                ShadingFrame frame = shading_frame(c, surface, direction, bsdf);
                v = bdpt_vertex(surface, frame, bsdf, direction);
                connects = bsdf_has_density(bsdf);

                // s = 1: next-event estimation, as the path tracer samples it.
                uint dimension_bounce = bounce + 1;
                float u_light = path_random(c, numbers, dimension_bounce, 2);
                vec2 u_point = vec2(path_random(c, numbers, dimension_bounce, 3), path_random(c, numbers, dimension_bounce, 4));
                LightSample light;
                if (connects && strategy_wanted(c, path, 1, t) && sample_direct_light(c, power_context(), u_light, u_point, light)) {
                    vec3 towards = light.at_infinity ? light.point_or_direction : light.point_or_direction - surface.point;
                    vec3 shadow_origin = leaving_point(v, towards);
                    vec3 wl;
                    float distance;
                    vec3 arriving;
                    float light_pdf;
                    // The segment from the offset origin must leave on the side the origin was
                    // offset to, as the path tracer requires: where the light lies in the
                    // surface's own plane (a point on an emitter's back face, sampling the
                    // emitter), the offset puts the origin in front of the light, and a segment
                    // from there back into the plane met the light at a cosine of epsilon over
                    // the distance, which near the point blew up (a random scene was 33% too
                    // bright; the light cannot reach its own plane).
                    if (light_segment(c, light, shadow_origin, wl, distance, arriving, light_pdf)
                        && (dot(wl, v.facing) < 0.0) == (dot(towards, v.facing) < 0.0)) {
                        float pdf;
                        float back_pdf;
                        vec3 f = vertex_eval(v, wl, false, pdf, back_pdf);
                        float cos_here = geometric_cos(v, wl);
                        float emission_pdf = emission_direction_pdf(c, light, -wl);
                        float light_side_pdf = pdf;
                        float camera_side_pdf = emission_pdf * cos_here;
                        if (!light.at_infinity) {
                            float cos_light = light.delta ? 1.0 : abs(dot(light.normal, wl));
                            light_side_pdf *= cos_light / (distance * distance);
                            camera_side_pdf /= distance * distance;
                        }
                        float weight = mis_connection_weight(mis_at_light(light.pdf, !light.delta), light_side_pdf, 0.0, mis,
                                                             camera_side_pdf, back_pdf);
                        vec3 contribution = throughput.xyz * f * arriving / light_pdf * strategy_weight(c, path, 1, t, weight);
                        has_shadow = any(greaterThan(contribution, vec3(0.0)));
                        shadow = ShadowRay(shadow_origin, distance * (1.0 - 1e-4), wl, contribution);
                    }
                }

                vec3 u = vec3(path_random(c, numbers, dimension_bounce, 0), path_random(c, numbers, dimension_bounce, 1),
                              path_random(c, numbers, dimension_bounce, 5));
                vec3 next = throughput.xyz;
                SubpathMis after = mis;
                // A Metropolis proposal's camera subpath ends at its strategy's t vertices.
                bool needed = !metropolis(c) || t < slot_strategy(c, path).y;
                continues = needed && continue_subpath(v, frame.wo_local, u, false, next, after, next_origin, next_direction)
                            && russian_roulette(
                                c, bounce + 1, path_random(c, numbers, dimension_bounce, RR_DIMENSION),
                                roulette_radiance_scale(bsdf, v.front, dot(next_direction, v.facing) < 0.0), next);
                if (continues) {
                    Vec3s(c.ray_origins).v[path] = next_origin;
                    Vec3s(c.ray_directions).v[path] = next_direction;
                    Vec4s(c.throughputs).v[path] = vec4(next, 0.0);
                    Vec2s(c.subpath_mis).v[path] = vec2(after.d_vcm, after.d_vc);
                    Uints(c.path_samples).v[path] = packed_sample + (1u << SAMPLE_BITS);
                }
            }
        }
        add_found_light(c, pixel, emitted);
    }
    uvec2 slots = enqueue_extend_and_connect(continues, has_shadow);
    store_shadow_along(c, slots.y, has_shadow, shadow.origin, shadow.direction, shadow.t_max, shadow.contribution,
                       shadow_target(c, pixel));
    count_strategy(c, 1, t, has_shadow);
    count_subpath_rays(c, 1, continues);
    if (continues) {
        Uints(c.extend_queue).v[slots.x] = path;
        store_ray_sort_key(c, c.extend_keys, slots.x, next_origin, next_direction);
    }

    // s >= 2: this vertex to each vertex of the light subpath that keeps the path within
    // max_depth segments (the light subpath's i-th stored vertex has i + 1 segments behind it,
    // so s + t - 1 <= max_depth while i + t < max_depth; t is the same in the whole launch).
    // Two a round, so that one atomic reserves both rounds' shadow paths; as many rounds as the
    // shortest camera subpath (t = 2) needs, the same for the whole workgroup, whose appends
    // meet at barriers.
    uint light_slot = c.light_share == 1 ? path : Uints(c.light_subpath_slots).v[path];
    uint light_vertices = connects ? Uints(c.light_vertex_counts).v[light_slot] : 0;
    uint connectable = t < c.max_depth ? min(light_vertices, c.max_depth - t) : 0;
    uint target = shadow_target(c, pixel);
    for (uint i = 0; i + 2 < c.max_depth; i += 2) {
        Connection first =
            light_vertex_connection(c, path, light_slot, i, t, connectable, v, throughput.xyz, absorption, mis);
        Connection second =
            light_vertex_connection(c, path, light_slot, i + 1, t, connectable, v, throughput.xyz, absorption, mis);
        uvec2 slots = enqueue_two(QUEUE_CONNECT, first.wanted, second.wanted);
        store_shadow(c, slots.x, first.wanted, first.from, first.to, first.contribution, target);
        store_shadow(c, slots.y, second.wanted, second.from, second.to, second.contribution, target);
        if (i + t < c.max_depth) {
            count_strategy(c, i + 2, t, first.wanted);
        }
        if (i + 1 + t < c.max_depth) {
            count_strategy(c, i + 3, t, second.wanted);
        }
    }
}
