// Shared by both trace backends: record a path's closest hit and queue it for shading.
// A miss ends the path (no environment light yet).
#ifndef WAVETRACE_ROUTE_HIT_GLSL
#define WAVETRACE_ROUTE_HIT_GLSL

void route_hit(PassConstants c, uint path, bool hit, float t, uint instance, uint primitive) {
    if (!hit) {
        return;
    }
    Hits(c.hits).v[path] = HitRecord(t, instance, primitive, 0);
    uint slot = atomicAdd(Queues(c.queues).q.shade_count, 1);
    Uints(c.shade_queue).v[slot] = path;
}

#endif
