#version 460
// The trace floor's miss: nothing was hit.
#extension GL_EXT_ray_tracing : require

layout(location = 0) rayPayloadInEXT uint hit;

void main() {
    hit = 0u;
}
