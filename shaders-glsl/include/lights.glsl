// Next-event estimation's light choice: an emissive triangle by power (binary search of the
// CDF built by src/lights/emissive.rs), then a uniform point on it. The density per unit area
// of any light point is luminance(radiance) / total power (see that module's doc).
#ifndef WAVETRACE_LIGHTS_GLSL
#define WAVETRACE_LIGHTS_GLSL

layout(buffer_reference, scalar) readonly buffer LightTriangles { EmissiveTriangle v[]; };
layout(buffer_reference, scalar) readonly buffer Floats { float v[]; };

float luminance(vec3 rgb) {
    return dot(rgb, vec3(0.2126, 0.7152, 0.0722));
}

// The first CDF entry greater than u.
uint sample_light_index(PassConstants c, float u) {
    Floats cdf = Floats(c.light_cdf);
    uint low = 0;
    uint high = c.light_count - 1;
    while (low < high) {
        uint middle = (low + high) / 2;
        if (cdf.v[middle] <= u) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

float light_area_density(PassConstants c, vec3 radiance) {
    return luminance(radiance) / c.light_total_power;
}

// A uniform point on the triangle (the square-root parametrisation) and its front normal.
void sample_triangle(EmissiveTriangle light, vec2 u, out vec3 position, out vec3 normal) {
    float s = sqrt(u.x);
    float b0 = 1.0 - s;
    float b1 = u.y * s;
    position = light.p0 * b0 + light.p1 * b1 + light.p2 * (1.0 - b0 - b1);
    normal = normalize(cross(light.p1 - light.p0, light.p2 - light.p0));
}

float power_heuristic(float a, float b) {
    float a2 = a * a;
    return a2 / (a2 + b * b);
}

#endif
