#version 460
//
// One thread before a batch of bidirectional paths: hands out the next camera paths (as many
// as there are path slots, fewer at the end), whose light subpaths start first. A batch past
// the last camera path gets none, and its kernels launch empty.
#extension GL_GOOGLE_include_directive : require

#include "wavefront.glsl"

layout(local_size_x = 1) in;

void main() {
    PassConstants c = constants();
    Queues queues = Queues(c.queues);
    uint64_t next = queues.q.next_camera_path;
    uint64_t left = queues.q.camera_paths > next ? queues.q.camera_paths - next : uint64_t(0);
    uint count = uint(min(left, uint64_t(c.path_slots)));
    queues.q.first_new_camera_path = next;
    queues.q.next_camera_path = next + count;
    queues.q.new_paths = count;
    queues.q.generate_groups = groups_for(count, WAVEFRONT_GROUP);
}
