// Connect in compute, the body of connect_query.comp and connect_software.comp: is anything
// between the surface and the light point? Shadow paths are stored in queue order, so the queue
// position is the shadow path (or, after the ray sort, the sorted queue's entry is).
#include "queues.glsl"
#include "connect.glsl"
#include "trace_rays.glsl"
#include "ray_log.glsl"

layout(local_size_x = WAVEFRONT_GROUP) in;

void main() {
    PassConstants c = constants();
    uint index = gl_GlobalInvocationID.x;
    if (index >= launched(QUEUE_CONNECT)) {
        return;
    }
    uint shadow = c.ray_sort_buckets > 0 ? Uints(c.sorted_connect_queue).v[index] : index;
    vec4 origin = Vec4s(c.shadow_origins).v[shadow];
    vec3 direction = Vec3s(c.shadow_directions).v[shadow];
    log_shadow_ray(c, shadow, origin.xyz, direction, origin.w);
    finish_connect(c, shadow, trace_occluded(c, origin.xyz, direction, origin.w));
}
