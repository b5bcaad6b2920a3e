// MIS for bidirectional path tracing: the two scalars a subpath carries (Georgiev's dVCM and
// dVC) and the weights of connections and light hits computed from them, with the power
// heuristic. The twin of src/integrator/bdpt/mis.rs, which says what each quantity means and
// holds the reference over whole paths; tests/bdpt_mis.rs holds the two together.
#ifndef WAVETRACE_BDPT_MIS_GLSL
#define WAVETRACE_BDPT_MIS_GLSL

struct SubpathMis {
    float d_vcm;
    float d_vc;
};

float mis_power(float ratio) {
    return ratio * ratio;
}

SubpathMis mis_leave_light(float position_pdf, float direction_pdf, float cos_out, bool hittable) {
    SubpathMis s;
    s.d_vcm = mis_power(1.0 / direction_pdf);
    s.d_vc = hittable ? mis_power(cos_out / (position_pdf * direction_pdf)) : 0.0;
    return s;
}

SubpathMis mis_at_light(float position_pdf, bool hittable) {
    SubpathMis s;
    s.d_vcm = hittable ? mis_power(1.0 / position_pdf) : 0.0;
    s.d_vc = 0.0;
    return s;
}

SubpathMis mis_leave_camera(float direction_pdf, float light_paths) {
    SubpathMis s;
    s.d_vcm = mis_power(light_paths / direction_pdf);
    s.d_vc = 0.0;
    return s;
}

void mis_arrive(inout SubpathMis s, float distance, float cos_in) {
    s.d_vcm *= mis_power(distance * distance / cos_in);
    s.d_vc /= mis_power(cos_in);
}

void mis_scatter(inout SubpathMis s, float pdf, float reverse_pdf, float cos_out, bool delta) {
    if (delta) {
        s.d_vcm = 0.0;
        s.d_vc *= mis_power(cos_out);
    } else {
        s.d_vc = mis_power(cos_out / pdf) * (s.d_vcm + s.d_vc * mis_power(reverse_pdf));
        s.d_vcm = mis_power(1.0 / pdf);
    }
}

// The shares of one end's side of a connection: `other_pdf` is the area density with which the
// other end would generate this vertex, `reverse_pdf` this vertex's density of scattering back
// along its own subpath.
float mis_side(SubpathMis s, float other_pdf, float reverse_pdf) {
    return mis_power(other_pdf) * (s.d_vcm + s.d_vc * mis_power(reverse_pdf));
}

float mis_connection_weight(SubpathMis light, float light_other_pdf, float light_reverse_pdf,
                            SubpathMis camera, float camera_other_pdf, float camera_reverse_pdf) {
    float light_side = mis_side(light, light_other_pdf, light_reverse_pdf);
    float camera_side = mis_side(camera, camera_other_pdf, camera_reverse_pdf);
    return 1.0 / (light_side + 1.0 + camera_side);
}

float mis_camera_connection_weight(SubpathMis light, float other_pdf, float reverse_pdf) {
    return 1.0 / (1.0 + mis_side(light, other_pdf, reverse_pdf));
}

float mis_light_hit_weight(SubpathMis camera, float position_pdf, float emission_pdf) {
    return 1.0 / (1.0 + mis_power(position_pdf) * camera.d_vcm + mis_power(emission_pdf) * camera.d_vc);
}

#endif
