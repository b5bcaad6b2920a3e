// Extend in compute, the body of extend_query.comp and extend_software.comp: closest hit of
// every queued path's ray, through trace_rays.glsl's backend.
#define SUBGROUP_APPEND
#include "route_hit.glsl"
#include "trace_rays.glsl"
#include "ray_log.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    // Lanes that leave here take no part in route_hit's subgroup append, which counts only
    // the lanes still running.
    if (index >= launched(QUEUE_EXTEND)) {
        return;
    }
    uint path = Uints(c.ray_sort_buckets > 0 ? c.sorted_extend_queue : c.extend_queue).v[index];
    vec3 origin = Vec3s(c.ray_origins).v[path];
    vec3 direction = Vec3s(c.ray_directions).v[path];
    bool last_segment = on_last_segment(c, path);
    log_extension_ray(c, path, origin, direction, 1e30);
    HitRecord record;
    bool hit = trace_closest(c, origin, direction, record);
    if (!hit) {
        record = HitRecord(0.0, 0, 0, 0);
    }
    route_hit(c, path, hit, record, last_segment);
}
