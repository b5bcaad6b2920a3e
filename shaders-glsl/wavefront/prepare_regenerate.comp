#version 460
//
// One thread at the start of an iteration: when fewer than 1 / REGENERATION_SHARE of the
// path slots hold a path and camera paths remain, plan a regeneration: the kept paths are
// compacted to the first slots (compact_find, compact_move) and the next camera paths fill
// the slots after them (generate). Otherwise every launch of the regeneration is empty.
// Every busy_paths path waits for extend here (the shade queue is empty in both schedules),
// so the extend queue's count is the number of busy_paths paths.
#extension GL_GOOGLE_include_directive : require

#include "queues.glsl"

layout(local_size_x = 1) in;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint busy_paths = queues.q.queued[QUEUE_EXTEND];
    uint64_t remaining = queues.q.camera_paths - queues.q.next_camera_path;
    bool refill = uint64_t(busy_paths) * REGENERATION_SHARE < uint64_t(c.path_slots) && remaining > 0;
    uint fresh = refill ? uint(min(uint64_t(c.path_slots - busy_paths), remaining)) : 0;
    queues.q.kept_paths = busy_paths;
    queues.q.new_paths = fresh;
    queues.q.free_slots = 0;
    queues.q.moving_paths = 0;
    queues.q.first_new_camera_path = queues.q.next_camera_path;
    queues.q.next_camera_path += fresh;
    // Paths at or past `busy_paths` move into free slots below it: at most min(busy_paths, slots - busy_paths).
    uint compact_slots = refill ? c.path_slots : 0;
    queues.q.compact_groups = groups_for(compact_slots, COMPACT_SLOTS_PER_GROUP);
    queues.q.move_groups = groups_for(refill ? min(busy_paths, c.path_slots - busy_paths) : 0, WAVEFRONT_GROUP);
    queues.q.generate_groups = groups_for(refill ? busy_paths + fresh : 0, WAVEFRONT_GROUP);
    if (refill) {
        // generate rewrites the extend queue as slots 0 .. busy_paths + fresh.
        queues.q.queued[QUEUE_EXTEND] = busy_paths + fresh;
    }
    Counters counters = Counters(c.kernel_counters);
    counters.v[0].items += fresh;
    counters.v[0].lanes += uint64_t((fresh + WAVEFRONT_GROUP - 1) / WAVEFRONT_GROUP * WAVEFRONT_GROUP);
    counters.v[0].busy_launches += fresh > 0 ? 1 : 0;
}
