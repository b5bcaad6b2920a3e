// Bidirectional path tracing, one vertex per kernel pass (src/integrator/bdpt/ says how the
// kernels hand subpaths to each other; docs/BDPT.md has the conventions). What the light and
// camera subpath kernels share: a vertex as a connection sees it, the BSDF evaluated in both
// directions (light subpaths carry importance, so theirs is the adjoint), stored light
// vertices, shadow paths, and which strategies count.
//
// Strategy (s, t): s vertices from the light subpath (x_0 on the light), t from the camera
// subpath (the camera is one); the path has s + t - 1 segments. A connection's contribution is
// returned unweighted beside its MIS weight, so that a single strategy's path-space
// contribution is available alone (`strategy_weight`, and Metropolis methods after this).
#ifndef WAVETRACE_BDPT_GLSL
#define WAVETRACE_BDPT_GLSL

#extension GL_EXT_shader_atomic_int64 : require

#include "path.glsl"
#include "emission.glsl"
#include "bdpt_mis.glsl"
#include "queues.glsl"
#include "mlt.glsl"
#include "film.glsl"
#include "packed_normal.glsl"

layout(buffer_reference, scalar) buffer Vec2s { vec2 v[]; };
layout(buffer_reference, scalar) buffer BdptCounters { uint64_t v[]; };

// A subpath's vertex as connections see it.
struct BdptVertex {
    vec3 position;
    // Back along the subpath.
    vec3 wo;
    // The shading normal (turned to wo) and its tangents; the geometric normal turned to wo.
    vec3 shading;
    vec3 tangent;
    vec3 bitangent;
    vec3 facing;
    bool front;
    Bsdf bsdf;
    uint material;
    float epsilon;
};

BdptVertex bdpt_vertex(SurfaceHit surface, ShadingFrame frame, Bsdf bsdf, vec3 direction) {
    return BdptVertex(surface.point, -direction, frame.normal, frame.tangent, frame.bitangent, surface.facing,
                      surface.front, bsdf, surface.material_index, surface.epsilon);
}

// Light vertices are stored as planes of vec4s, [plane][vertex][slot] (store_light_vertex
// says which fields each holds), so that a warp storing or loading the same vertex of
// neighbouring slots touches whole consecutive cache lines: stored as whole structs, a slot's
// vertices max_depth x 128 bytes apart, each 4-byte field of a warp was 32 scattered sectors,
// and storing them cost shade_light twice its shading (H100).
// Each plane is addressed from its own 64-bit base: the whole array passes 4 GiB with a few
// million slots, and an index into it scaled by 16 in 32 bits wrapped (the H100 at 2^23
// slots lost every connection); within a plane the host keeps offsets under 4 GiB. The planes
// lie in two buffers (the host's `LightVertexPlanes`), so that neither passes the largest
// allocation the device allows.
Vec4s light_vertex_plane(PassConstants c, uint plane) {
    uint64_t plane_bytes = uint64_t(c.max_depth) * uint64_t(c.path_slots) * 16ul;
    bool low = plane < c.light_vertex_low_planes;
    uint64_t base = low ? c.light_vertices : c.light_vertices_high;
    return Vec4s(base + uint64_t(low ? plane : plane - c.light_vertex_low_planes) * plane_bytes);
}

// Camera subpaths may share light subpaths: a pixel's group is the `light_share` pixels (1,
// 2 or 4) LIGHT_SHARE_APART columns (and, for 4, rows) apart within a square of twice that,
// and each sample of a group connects to one light subpath, drawn from the numbers of the
// group's first pixel, which alone splats it (t = 1). Whichever slot traces it, it is the
// same subpath, so that passes, chunks and tiles of a render add up to the render's bits;
// where a group is split between batches or tiles, each part traces it and only the first
// pixel's splats. src/integrator/bdpt/mod.rs's `light_groups` counts the groups.
const uint NOT_IN_BATCH = 0xffffffffu;

uint light_subpath_pixel(PassConstants c, uint pixel) {
    if (c.light_share == 1) {
        return pixel;
    }
    uint y = pixel / c.width;
    uint x = (pixel - y * c.width) & ~LIGHT_SHARE_APART;
    if (c.light_share == 4) {
        y &= ~LIGHT_SHARE_APART;
    }
    return y * c.width + x;
}

// The slot of camera path (x, y, sample_index) in the current batch, or NOT_IN_BATCH.
uint batch_slot(PassConstants c, uint x, uint y, uint sample_index) {
    if (x < c.crop_x || y < c.crop_y || x - c.crop_x >= c.crop_width || y - c.crop_y >= c.crop_height) {
        return NOT_IN_BATCH;
    }
    uint64_t camera_path =
        uint64_t(sample_index - c.first_sample) * crop_pixels(c) + tiled_index(c, x - c.crop_x, y - c.crop_y);
    Queues queues = Queues(c.queues);
    uint64_t first = queues.q.first_new_camera_path;
    if (camera_path < first || camera_path - first >= uint64_t(queues.q.new_paths)) {
        return NOT_IN_BATCH;
    }
    return uint(camera_path - first);
}

// The slot that traces the light subpath of `slot`'s camera path (pixel, sample_index): the
// first of its group's pixels in the batch.
uint light_subpath_tracer(PassConstants c, uint slot, uint pixel, uint sample_index) {
    uint first = light_subpath_pixel(c, pixel);
    uint y0 = first / c.width;
    uint x0 = first - y0 * c.width;
    for (uint member = 0; member < c.light_share; ++member) {
        uint x = x0 + (member & 1u) * LIGHT_SHARE_APART;
        uint y = y0 + (member >> 1) * LIGHT_SHARE_APART;
        if (y * c.width + x == pixel) {
            return slot;
        }
        if (x < c.width && y < c.height) {
            uint tracer = batch_slot(c, x, y, sample_index);
            if (tracer != NOT_IN_BATCH) {
                return tracer;
            }
        }
    }
    return slot;
}

uint light_vertex_index(PassConstants c, uint slot, uint index) {
    return index * c.path_slots + slot;
}

// A light vertex is stored as fewer planes than its struct has, leaving out what follows
// from the rest exactly (each plane a vertex stores costs BDPT about 2.6% on the Cornell box,
// docs/BENCHMARKS.md): the offset epsilon is a function of the position, and a material's
// specular colour, specular, transmission and ior are its constants (surface_bsdf), found
// again from the material's index. A scene without glossy lobes (FEATURE_METAL,
// _SPECULAR_LAYER, _TRANSMISSION) stores LIGHT_VERTEX_LAMBERTIAN_PLANES, the base colour in
// their fourth components: its metallic, specular and transmission are exactly 0
// (kernel_features.rs sets the feature wherever a material's factor is not), and its flags
// change nothing (with no transmission, which side wo is on does not enter the BSDF; a vertex
// that cannot be connected is black, and connects to nothing anyway).
// Where a material textures its layers' factors (FEATURE_LAYER_TEXTURES), they are no
// material constants: LIGHT_VERTEX_TEXTURED_PLANES keep them, as read at the vertex.
// A coat's normal (in the vertex's shading frame) rides in the flags word of a glossy vertex,
// above its two flags (LIGHT_VERTEX_COAT_NORMAL_SHIFT, packed_normal.glsl), where a plane more
// would cost every glossy scene's connections.
void store_light_vertex(PassConstants c, uint slot, uint index, BdptVertex v, vec3 throughput, SubpathMis mis) {
    Bsdf b = v.bsdf;
    uint at = light_vertex_index(c, slot, index);
    light_vertex_plane(c, 0).v[at] = vec4(v.position, mis.d_vcm);
    light_vertex_plane(c, 1).v[at] = vec4(v.wo, mis.d_vc);
    if (!HAS_GLOSSY_LOBES) {
        light_vertex_plane(c, 2).v[at] = vec4(throughput, b.base_color.r);
        light_vertex_plane(c, 3).v[at] = vec4(v.shading, b.base_color.g);
        light_vertex_plane(c, 4).v[at] = vec4(v.facing, b.base_color.b);
        return;
    }
    uint flags = (v.front ? LIGHT_VERTEX_FRONT : 0u) | (bsdf_has_density(v.bsdf) ? LIGHT_VERTEX_CONNECTABLE : 0u);
    if (HAS_CLEARCOAT) {
        flags |= pack_unit_vector(b.coat_normal) << LIGHT_VERTEX_COAT_NORMAL_SHIFT;
    }
    light_vertex_plane(c, 2).v[at] = vec4(throughput, uintBitsToFloat(flags));
    light_vertex_plane(c, 3).v[at] = vec4(v.shading, b.metallic);
    light_vertex_plane(c, 4).v[at] = vec4(v.facing, b.alpha);
    light_vertex_plane(c, 5).v[at] = vec4(b.base_color, uintBitsToFloat(v.material));
    if (HAS_LAYER_TEXTURES) {
        light_vertex_plane(c, 6).v[at] = vec4(b.specular_color, b.specular);
        light_vertex_plane(c, 7).v[at] = vec4(b.transmission, b.clearcoat, b.coat_alpha, 0.0);
    }
}

LightVertex load_light_vertex(PassConstants c, uint slot, uint index) {
    uint at = light_vertex_index(c, slot, index);
    vec4 p[LIGHT_VERTEX_TEXTURED_PLANES];
    for (uint plane = 0; plane < LIGHT_VERTEX_TEXTURED_PLANES; ++plane) {
        bool stored = plane < LIGHT_VERTEX_LAMBERTIAN_PLANES || (HAS_GLOSSY_LOBES && plane < LIGHT_VERTEX_GLOSSY_PLANES) ||
                      (HAS_GLOSSY_LOBES && HAS_LAYER_TEXTURES);
        if (stored) {
            p[plane] = light_vertex_plane(c, plane).v[at];
        }
    }
    float epsilon = offset_epsilon(p[0].xyz);
    if (!HAS_GLOSSY_LOBES) {
        // As a Lambertian surface's values: a white specular colour, GGX alpha 1, ior 1.5.
        uint flags = LIGHT_VERTEX_FRONT | LIGHT_VERTEX_CONNECTABLE;
        return LightVertex(p[0].xyz, p[0].w, p[1].xyz, p[1].w, p[2].xyz, flags, p[3].xyz, epsilon, p[4].xyz, 0.0,
                           vec3(p[2].w, p[3].w, p[4].w), 0.0, vec3(1.0), 0.0, 1.0, 1.5, 0u, 0.0, 0.0, 0u, 0u, 0u);
    }
    uint material = floatBitsToUint(p[5].w);
    GpuMaterial m = Materials(c.materials).v[material];
    if (HAS_LAYER_TEXTURES) {
        return LightVertex(p[0].xyz, p[0].w, p[1].xyz, p[1].w, p[2].xyz, floatBitsToUint(p[2].w), p[3].xyz, epsilon,
                           p[4].xyz, p[3].w, p[5].xyz, p[6].w, p[6].xyz, p[7].x, p[4].w, m.ior, material,
                           HAS_CLEARCOAT ? p[7].y : 0.0, HAS_CLEARCOAT ? p[7].z : 0.0, 0u, 0u, 0u);
    }
    return LightVertex(p[0].xyz, p[0].w, p[1].xyz, p[1].w, p[2].xyz, floatBitsToUint(p[2].w), p[3].xyz, epsilon,
                       p[4].xyz, p[3].w, p[5].xyz, m.specular, m.specular_color, m.transmission, p[4].w, m.ior,
                       material, HAS_CLEARCOAT ? m.clearcoat : 0.0,
                       HAS_CLEARCOAT ? m.clearcoat_roughness * m.clearcoat_roughness : 0.0, 0u, 0u, 0u);
}

BdptVertex bdpt_vertex_of(LightVertex s) {
    vec3 tangent;
    vec3 bitangent;
    basis(s.shading, tangent, bitangent);
    vec3 coat_normal = HAS_CLEARCOAT ? unpack_unit_vector(s.flags >> LIGHT_VERTEX_COAT_NORMAL_SHIFT) : vec3(0.0, 0.0, 1.0);
    Bsdf b = Bsdf(s.base_color, s.metallic, s.specular_color, s.specular, s.alpha, s.transmission, s.ior, s.clearcoat,
                  s.coat_alpha, coat_normal);
    return BdptVertex(s.position, s.wo, s.shading, tangent, bitangent, s.facing, (s.flags & LIGHT_VERTEX_FRONT) != 0,
                      b, s.material, s.epsilon);
}

// Light subpaths carry importance: the adjoint BSDF has no 1/eta^2 of radiance (a refraction
// keeps a light particle's power) and, with shading normals, Veach's correction
// |wo.ns| |wi.ng| / (|wo.ng| |wi.ns|) that keeps it reciprocal to the camera side's.
float adjoint_factor(BdptVertex v, vec3 wo_local, vec3 wi_local, vec3 wi, bool transmitted) {
    float eta = refraction_eta(v.bsdf, v.front);
    float refraction = transmitted ? eta * eta : 1.0;
    float denominator = abs(dot(v.wo, v.facing)) * abs(wi_local.z);
    float shading = denominator > 0.0 ? abs(wo_local.z) * abs(dot(wi, v.facing)) / denominator : 0.0;
    return refraction * shading;
}

// The density of the BSDF scattering back along wo, given it arrived from wi (both local).
float reverse_pdf(BdptVertex v, vec3 wo_local, vec3 wi_local) {
    float pdf;
    if (wi_local.z > 0.0) {
        bsdf_eval(v.bsdf, wi_local, wo_local, v.front, pdf);
    } else {
        // Seen from wi's side the frame turns over, and the medium wo is in is the other one.
        Bsdf turned = v.bsdf;
        turned.coat_normal.z = -turned.coat_normal.z;
        bsdf_eval(turned, vec3(wi_local.xy, -wi_local.z), vec3(wo_local.xy, -wo_local.z), !v.front, pdf);
    }
    return pdf;
}

// f x |cos| towards w (w leaving the vertex), the density of sampling w from wo and of
// sampling wo from w; the adjoint for light subpaths (`importance`). Zero where the shading
// and geometric normals disagree about w's side (as path.glsl drops such directions).
vec3 vertex_eval(BdptVertex v, vec3 w, bool importance, out float pdf, out float back_pdf) {
    pdf = 0.0;
    back_pdf = 0.0;
    vec3 wo_local = to_local(v.wo, v.tangent, v.bitangent, v.shading);
    vec3 wi_local = to_local(w, v.tangent, v.bitangent, v.shading);
    bool below = dot(w, v.facing) < 0.0;
    if ((wi_local.z < 0.0) != below) {
        return vec3(0.0);
    }
    vec3 f = bsdf_eval(v.bsdf, wo_local, wi_local, v.front, pdf);
    back_pdf = reverse_pdf(v, wo_local, wi_local);
    if (importance) {
        f *= adjoint_factor(v, wo_local, wi_local, w, below);
    }
    return f;
}

// |cos| of w to the geometric normal: the area densities of MIS all use it.
float geometric_cos(BdptVertex v, vec3 w) {
    return abs(dot(v.facing, w));
}

// Where a ray leaving the vertex towards w starts: off the surface on w's side.
vec3 leaving_point(BdptVertex v, vec3 w) {
    return v.position + (dot(w, v.facing) < 0.0 ? -v.facing : v.facing) * v.epsilon;
}

// Where the shadow segment of a connection (or a splat) between v and a point `distance` away
// along w ends at v: on the segment itself, as far along it as puts the end `epsilon` off v's
// surface, at most SEGMENT_END_OFFSETS epsilons (directions that graze the surface) and a quarter
// of the segment. leaving_point's offset along the normal moves the whole segment sideways:
// where an occluder's edge lies within a few epsilons of the true segment, that changes which
// connections it blocks. Lights 5 mm under the ceiling of cornell-many-lights, seen from the
// camera at a grazing angle, made BDPT's splats 0.65% too dark so (docs/BDPT.md).
const float SEGMENT_END_OFFSETS = 16.0;

vec3 segment_end(BdptVertex v, vec3 w, float distance) {
    float cos_surface = abs(dot(w, v.facing));
    float along = cos_surface * SEGMENT_END_OFFSETS > 1.0 ? v.epsilon / cos_surface : SEGMENT_END_OFFSETS * v.epsilon;
    return v.position + w * min(along, 0.25 * distance);
}

// Continues a subpath from v by a sample of its BSDF (the adjoint for light subpaths,
// `importance`): false where the sample fails, carries nothing, or leaves on the other side of
// the geometric surface than the shading frame says (as path.glsl drops it). Otherwise the next
// segment's origin and direction, and the throughput and MIS scalars after scattering.
bool continue_subpath(BdptVertex v, vec3 wo_local, vec3 u, bool importance, inout vec3 throughput,
                      inout SubpathMis mis, out vec3 origin, out vec3 direction) {
    origin = v.position;
    direction = v.wo;
    BsdfSample scattered;
    if (!bsdf_sample(v.bsdf, wo_local, v.front, u, scattered)) {
        return false;
    }
    vec3 outgoing = from_local(scattered.wi, v.tangent, v.bitangent, v.shading);
    bool below = dot(outgoing, v.facing) < 0.0;
    vec3 next = throughput * scattered.weight;
    if (importance) {
        next *= adjoint_factor(v, wo_local, scattered.wi, outgoing, scattered.transmitted);
    }
    if (below != scattered.transmitted || !any(greaterThan(next, vec3(0.0)))) {
        return false;
    }
    float back_pdf = scattered.delta ? 0.0 : reverse_pdf(v, wo_local, scattered.wi);
    mis_scatter(mis, scattered.pdf, back_pdf, geometric_cos(v, outgoing), scattered.delta);
    throughput = next;
    origin = leaving_point(v, outgoing);
    direction = outgoing;
    return true;
}

// Where a subpath's random numbers come from: the path tracer's (seed, pixel, sample), or, in
// Metropolis light transport, the primary sample of proposal `pixel` at iteration
// `sample_index` (mlt.glsl), whose ids are looked up once.
struct PathNumbers {
    uint pixel;
    uint sample_index;
    bool metropolis;
    MltIds ids;
};

PathNumbers path_numbers(PassConstants c, uint pixel, uint sample_index) {
    MltIds ids = MltIds(0ul, 0ul, 0ul, 0ul);
    bool mlt = metropolis(c);
    if (mlt) {
        ids = mlt_proposal_ids(c, pixel, sample_index);
    }
    return PathNumbers(pixel, sample_index, mlt, ids);
}

float path_random(PassConstants c, PathNumbers numbers, uint bounce, uint dimension) {
    if (numbers.metropolis) {
        return mlt_number(c, numbers.ids, mlt_dimension(c, bounce, dimension));
    }
    return path_number(c, numbers.pixel, numbers.sample_index, bounce, dimension);
}

// The one strategy a Metropolis proposal's slot evaluates (generate_light chose it).
uvec2 slot_strategy(PassConstants c, uint path) {
    uint packed = Uints(c.mlt_strategies).v[path];
    return uvec2(packed & 0xffffu, packed >> 16);
}

bool strategy_wanted(PassConstants c, uint path, uint s, uint t) {
    if (metropolis(c)) {
        uvec2 chosen = slot_strategy(c, path);
        return s == chosen.x && t == chosen.y;
    }
    return c.strategy_s == BDPT_ALL_STRATEGIES || (s == c.strategy_s && t == c.strategy_t);
}

// The weight strategy (s, t) gets: its MIS weight, or, when one strategy is rendered alone,
// 1 for it and 0 for the others. A Metropolis proposal's strategy was chosen uniformly among
// its length's: its MIS weight over that choice's probability (multiplexed MLT).
float strategy_weight(PassConstants c, uint path, uint s, uint t, float mis_weight) {
    if (metropolis(c)) {
        return strategy_wanted(c, path, s, t) ? mis_weight * float(mlt_strategy_count(s + t - 1)) : 0.0;
    }
    if (c.strategy_s == BDPT_ALL_STRATEGIES) {
        return mis_weight;
    }
    return s == c.strategy_s && t == c.strategy_t ? 1.0 : 0.0;
}

// What the pixel field of a shadow path says: the film pixel, or in Metropolis light transport
// the proposal whose record the contribution goes to (its pixel already there).
uint shadow_target(PassConstants c, uint pixel) {
    return metropolis(c) ? pixel | MLT_RECORD : pixel;
}

// Light a subpath vertex adds straight away (an emitter a camera subpath finds): to the film,
// or to a Metropolis proposal's record.
void add_found_light(PassConstants c, uint pixel, vec3 value) {
    if (metropolis(c)) {
        if (any(greaterThan(value, vec3(0.0)))) {
            MltRecords(c.mlt_records).v[pixel].contribution = value;
        }
        return;
    }
    film_add(c.film, pixel, film_quantize(value));
}

// Counts, for --stats, the shadow paths of strategy (s, t) this subgroup queues (every lane of
// the subgroup calls, with the same s and t).
void count_strategy(PassConstants c, uint s, uint t, bool queued) {
    uint n = subgroupBallotBitCount(subgroupBallot(queued));
    if (n > 0 && subgroupElect() && s < BDPT_COUNTED && t < BDPT_COUNTED) {
        atomicAdd(BdptCounters(c.bdpt_counters).v[s * BDPT_COUNTED + t], uint64_t(n));
    }
}

// Counts the subpath extension rays this subgroup queues (light: 0, camera: 1).
void count_subpath_rays(PassConstants c, uint subpath, bool queued) {
    uint n = subgroupBallotBitCount(subgroupBallot(queued));
    if (n > 0 && subgroupElect()) {
        atomicAdd(BdptCounters(c.bdpt_counters).v[BDPT_COUNTED * BDPT_COUNTED + subpath], uint64_t(n));
    }
}

// Stores the shadow path from `origin` along `direction` up to `t_max` at `slot` of the connect
// queue, where `wanted` says this lane has one. The contribution lands on `pixel` if nothing
// blocks it.
void store_shadow_along(PassConstants c, uint slot, bool wanted, vec3 origin, vec3 direction, float t_max,
                        vec3 contribution, uint pixel) {
    // The integrator makes room for every shadow path a step can queue; the test only guards
    // memory if one ever did not.
    if (wanted && slot < c.shadow_capacity) {
        Vec4s(c.shadow_origins).v[slot] = vec4(origin, t_max);
        Vec3s(c.shadow_directions).v[slot] = direction;
        Vec3s(c.shadow_contributions).v[slot] = contribution;
        Uints(c.shadow_pixels).v[slot] = pixel;
        store_ray_sort_key(c, c.connect_keys, slot, origin, direction);
    }
}

// The same, from `origin` to just short of `target`.
void store_shadow(PassConstants c, uint slot, bool wanted, vec3 origin, vec3 target, vec3 contribution, uint pixel) {
    vec3 to_target = target - origin;
    float distance = length(to_target);
    store_shadow_along(c, slot, wanted, origin, to_target / distance, distance * (1.0 - 1e-4), contribution, pixel);
}

#endif
