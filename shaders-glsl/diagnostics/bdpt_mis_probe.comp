#version 460
//
// The MIS weight of every strategy of random paths, computed as the bidirectional kernels do
// (bdpt_mis.glsl: the subpaths' two scalars, updated vertex by vertex), so that tests can hold
// them to the reference over whole paths (src/integrator/bdpt/mis.rs). A path is
// BDPT_PROBE_PATH_FLOATS floats: its length k, the light point's density, whether the light can
// be hit, the camera ray's density and the light paths per image, then arrays of
// BDPT_PROBE_MAX_VERTICES: segment lengths, cosines towards the next and the previous vertex,
// scattering densities towards the camera and towards the light, and delta flags.
#extension GL_GOOGLE_include_directive : require

#include "common.glsl"
#include "bdpt_mis.glsl"

layout(local_size_x = PROBE_GROUP) in;

layout(push_constant, scalar) uniform PushBlock {
    BdptMisProbePush push;
};

layout(buffer_reference, scalar) readonly buffer Floats { float v[]; };
layout(buffer_reference, scalar) writeonly buffer Weights { float v[]; };

const uint DISTANCE = 0u;
const uint COS_NEXT = 1u;
const uint COS_PREVIOUS = 2u;
const uint TOWARD_CAMERA = 3u;
const uint TOWARD_LIGHT = 4u;
const uint DELTA = 5u;

uint path_base;

float header(uint i) {
    return Floats(push.paths).v[path_base + i];
}

float at(uint array, uint i) {
    return header(5u + array * BDPT_PROBE_MAX_VERTICES + i);
}

bool is_delta(uint i) {
    return at(DELTA, i) != 0.0;
}

// Area density at x_{i+1} of the light subpath's step from x_i, and at x_{i-1} of the camera's
// step from x_i.
float area_from_light(uint i) {
    float d = at(DISTANCE, i);
    return at(TOWARD_CAMERA, i) * at(COS_PREVIOUS, i + 1u) / (d * d);
}

float area_from_camera(uint i) {
    float d = at(DISTANCE, i - 1u);
    return at(TOWARD_LIGHT, i) * at(COS_NEXT, i - 1u) / (d * d);
}

SubpathMis light_state(uint end, bool hittable) {
    SubpathMis s = mis_leave_light(header(1u), at(TOWARD_CAMERA, 0u), at(COS_NEXT, 0u), hittable);
    mis_arrive(s, at(DISTANCE, 0u), at(COS_PREVIOUS, 1u));
    for (uint i = 1u; i < end; ++i) {
        mis_scatter(s, at(TOWARD_CAMERA, i), at(TOWARD_LIGHT, i), at(COS_NEXT, i), is_delta(i));
        mis_arrive(s, at(DISTANCE, i), at(COS_PREVIOUS, i + 1u));
    }
    return s;
}

SubpathMis camera_state(uint end, uint k) {
    SubpathMis s = mis_leave_camera(header(3u), header(4u));
    mis_arrive(s, at(DISTANCE, k - 1u), at(COS_NEXT, k - 1u));
    for (uint i = k - 1u; i > end; --i) {
        mis_scatter(s, at(TOWARD_LIGHT, i), at(TOWARD_CAMERA, i), at(COS_PREVIOUS, i), is_delta(i));
        mis_arrive(s, at(DISTANCE, i - 1u), at(COS_NEXT, i - 1u));
    }
    return s;
}

float strategy_weight(uint s, uint k, bool hittable) {
    float position_pdf = header(1u);
    if (s == 0u) {
        if (!hittable) {
            return 0.0;
        }
        return mis_light_hit_weight(camera_state(0u, k), position_pdf, position_pdf * at(TOWARD_CAMERA, 0u));
    }
    // No strategy connects at a delta vertex.
    if ((s > 1u && is_delta(s - 1u)) || (s < k && is_delta(s))) {
        return 0.0;
    }
    SubpathMis light = s == 1u ? mis_at_light(position_pdf, hittable) : light_state(s - 1u, hittable);
    float light_other = area_from_camera(s);
    float light_reverse = at(TOWARD_LIGHT, s - 1u);
    if (s == k) {
        return mis_camera_connection_weight(light, light_other, light_reverse);
    }
    return mis_connection_weight(light, light_other, light_reverse, camera_state(s, k), area_from_light(s - 1u),
                                 at(TOWARD_CAMERA, s));
}

void main() {
    uint path = gl_GlobalInvocationID.x;
    if (path >= push.count) {
        return;
    }
    path_base = path * BDPT_PROBE_PATH_FLOATS;
    uint k = uint(header(0u));
    bool hittable = header(2u) != 0.0;
    for (uint s = 0u; s < BDPT_PROBE_MAX_VERTICES; ++s) {
        Weights(push.weights).v[path * BDPT_PROBE_MAX_VERTICES + s] = s <= k ? strategy_weight(s, k, hittable) : 0.0;
    }
}
