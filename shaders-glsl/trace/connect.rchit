#version 460
//
// Never runs (connect skips closest-hit shaders); the hit group exists so that the shader
// binding table has one for the hits the traversal finds.
#extension GL_EXT_ray_tracing : require

layout(location = 0) rayPayloadInEXT uint visible;

void main() {
    visible = 0;
}
