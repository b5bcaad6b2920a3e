// What every wavefront kernel sees: the pass constants and typed views of the buffers they
// name. Path state is structure-of-arrays, indexed by path id.
#ifndef WAVETRACE_WAVEFRONT_GLSL
#define WAVETRACE_WAVEFRONT_GLSL

#include "common.glsl"
#include "scene.glsl"

layout(buffer_reference, scalar) readonly buffer ConstantsRef { PassConstants c; };
layout(buffer_reference, scalar) buffer Vec4s { vec4 v[]; };
layout(buffer_reference, scalar) buffer Uints { uint v[]; };
layout(buffer_reference, scalar) buffer Hits { HitRecord v[]; };
layout(buffer_reference, scalar) coherent buffer Queues { QueueState q; };

layout(push_constant, scalar) uniform PushBlock {
    WavefrontPush push;
};

PassConstants constants() {
    return ConstantsRef(push.constants).c;
}

const uint WAVEFRONT_GROUP = 64;

#endif
