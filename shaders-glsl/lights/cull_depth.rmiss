#version 460
// Light culling's depth kernel: no hit.
#extension GL_EXT_ray_tracing : require

layout(location = 0) rayPayloadInEXT float hit_t;

void main() {
    hit_t = -1.0;
}
