// Shared by both connect backends: an unoccluded shadow ray adds its stored contribution.
#ifndef WAVETRACE_CONNECT_GLSL
#define WAVETRACE_CONNECT_GLSL

void finish_connect(PassConstants c, uint path, bool occluded) {
    if (!occluded) {
        Vec4s film = Vec4s(c.film);
        film.v[path] += vec4(Vec4s(c.shadow_contributions).v[path].xyz, 0.0);
    }
}

#endif
