// Shared by both extend backends: a hit is recorded and queued for shading with its material's
// sort key; a miss adds what the environment sends back along the ray, ends the path and
// frees its slot (or, for bidirectional subpaths, is queued for shading as well).
#ifndef WAVETRACE_ROUTE_HIT_GLSL
#define WAVETRACE_ROUTE_HIT_GLSL

#include "queues.glsl"
#include "lights.glsl"
#include "film.glsl"

// Materials share buckets only when there are more materials than buckets: neighbours in the
// material table then share one.
uint material_sort_key(PassConstants c, uint mesh) {
    if (c.material_sort_buckets <= 1) {
        return 0;
    }
    uint material = Meshes(c.meshes).v[mesh].material;
    if (c.material_count <= c.material_sort_buckets) {
        return material;
    }
    return uint(uint64_t(material) * c.material_sort_buckets / c.material_count);
}

// The shade sort's bucket: the material's, then the path's slot range (as Cycles partitions
// its shader sort), so that a bucket's paths read neighbouring state.
uint shade_sort_key(PassConstants c, uint mesh, uint path) {
    return material_sort_key(c, mesh) * c.sort_partitions + path / c.sort_partition_size;
}

// With the ray sort, extend visits its queue in key order. Had the paths reached the shade
// kernels in that order, their loads and stores of slot-indexed state would scatter
// (bidirectional light vertices above all: on the H100 shade_light took 4x as long). Where
// shading keeps extend's order, the shade queue is extend's queue in its own order, which
// neighbouring slots fill in runs: the ray sort copies it there (`unsorted_copy`), the shade
// launch spans extend's (prepare_launch), and a path that extend ended (its pixel marked
// INACTIVE_PATH) is skipped. The path tracer's cycles scheduler, which may run extend twice
// before shading, groups the shade queue by slot range instead.
bool shade_in_extend_order(PassConstants c) {
    return c.shade_in_extend_order != 0;
}

// Whether the path's ray is its last segment, for a path tracer (bidirectional subpaths shade
// every vertex they find). Read before the trace, so that the load waits alongside it.
bool on_last_segment(PassConstants c, uint path) {
    return c.shade_misses == 0 && path_bounce(Uints(c.path_samples).v[path]) + 1 >= c.max_depth;
}

// `last_segment` from on_last_segment: there a path only adds the emission it finds, so a hit
// on an instance that does not emit ends it here rather than in a shading kernel (at depth 3
// a quarter of all hits on the Cornell box; shading one loads the triangle and the material).
void route_hit(PassConstants c, uint path, bool hit, HitRecord record, bool last_segment) {
    bool ends_unshaded = hit && last_segment && !instance_emits(c.instances, record.instance);
    // Bidirectional subpaths weigh what a miss finds against their other strategies (or, for a
    // light subpath, just end), so their shading kernels see misses too, as t < 0.
    bool shaded = hit ? !ends_unshaded : c.shade_misses != 0;
    uint slot = enqueue(QUEUE_SHADE, shaded);
    // In extend's order the shade queue holds the path already.
    bool queued = shade_in_extend_order(c);
    if (ends_unshaded) {
        Uints(c.path_pixels).v[path] = INACTIVE_PATH;
        return;
    }
    if (!hit && shaded) {
        Hits(c.hits).v[path] = PathHit(-1.0, 0, 0);
        if (!queued) {
            Uints(c.shade_queue).v[slot] = path;
        }
        return;
    }
    if (!hit) {
        if (HAS_ENVIRONMENT && c.environment_kind != ENVIRONMENT_NONE) {
            vec3 seen = environment_seen(c, Vec3s(c.ray_directions).v[path], Vec4s(c.throughputs).v[path]);
            film_add(c.film, Uints(c.path_pixels).v[path], film_quantize(seen));
        }
        Uints(c.path_pixels).v[path] = INACTIVE_PATH;
        return;
    }
    Hits(c.hits).v[path] = PathHit(record.t, record.instance, record.primitive);
    if (!queued) {
        Uints(c.shade_queue).v[slot] = path;
    }
    if (c.sort_buckets > 0) {
        Uints(c.shade_keys).v[slot] = shade_sort_key(c, Instances(c.instances).v[record.instance].mesh, path);
    }
}

#endif
