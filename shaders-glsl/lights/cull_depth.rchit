#version 460
// Light culling's depth kernel: the hit's distance.
#extension GL_EXT_ray_tracing : require

layout(location = 0) rayPayloadInEXT float hit_t;

void main() {
    hit_t = gl_HitTEXT;
}
