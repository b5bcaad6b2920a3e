// The pinhole camera (src/scene/camera.rs is its CPU twin): the direction through an image
// position, and, for light subpaths that connect to the camera, the projection of a point onto
// the image with the camera's density of directions and its importance.
//
// The image lies on the plane at distance 1 in front of the camera, 2 tan(yfov / 2) high and
// `aspect` times that wide: its area A = 4 tan^2(yfov / 2) aspect. A ray through a uniform
// position on the whole image has direction density 1 / (A cos^3 theta) (theta to the forward
// axis), and a pixel's mean radiance is the integral of the radiance arriving along the
// directions through it times pixels / (A cos^3 theta): the importance.
//
// Nothing nearer than the view depth camera_near is seen (glTF's znear, Mitsuba's near_clip):
// camera rays start on that plane, and a light path reaches the camera only from beyond it,
// its last segment tested for blockers up to the plane alone. The camera stays a pinhole at
// camera_origin, so the importance and densities above are unchanged.
#ifndef WAVETRACE_CAMERA_GLSL
#define WAVETRACE_CAMERA_GLSL

#include "common.glsl"

// The direction through image position p (pixels, row 0 at the top).
vec3 camera_direction(PassConstants c, vec2 p) {
    float sx = (2.0 * p.x / float(c.width) - 1.0) * c.tan_half_yfov * c.aspect;
    float sy = (1.0 - 2.0 * p.y / float(c.height)) * c.tan_half_yfov;
    return normalize(c.camera_right * sx + c.camera_up * sy + c.camera_forward);
}

// How far a camera ray along unit `direction` runs from the pinhole before it starts, on the
// near plane; a path's first segment adds it to its hit distance.
float camera_ray_start(PassConstants c, vec3 direction) {
    return c.camera_near / dot(direction, c.camera_forward);
}

vec3 camera_ray_origin(PassConstants c, vec3 direction) {
    return c.camera_origin + direction * camera_ray_start(c, direction);
}

// Where the segment from `point` (beyond the near plane) to the pinhole crosses the near
// plane: the end of a light path's last segment as far as blockers go.
vec3 camera_near_point(PassConstants c, vec3 point) {
    vec3 d = point - c.camera_origin;
    return c.camera_origin + d * (c.camera_near / dot(d, c.camera_forward));
}

// Where `point` appears on the image (false when it is before the near plane, behind the
// camera or outside the image), and the cosine between the direction to it and the forward axis.
bool camera_project(PassConstants c, vec3 point, out vec2 image_position, out float cos_theta) {
    vec3 d = point - c.camera_origin;
    float z = dot(d, c.camera_forward);
    image_position = vec2(-1.0);
    cos_theta = 0.0;
    if (!(z > 0.0) || z < c.camera_near) {
        return false;
    }
    float sx = dot(d, c.camera_right) / z;
    float sy = dot(d, c.camera_up) / z;
    image_position = vec2((sx / (c.tan_half_yfov * c.aspect) + 1.0) * 0.5 * float(c.width),
                          (1.0 - sy / c.tan_half_yfov) * 0.5 * float(c.height));
    cos_theta = z / length(d);
    return image_position.x >= 0.0 && image_position.x < float(c.width) && image_position.y >= 0.0 &&
           image_position.y < float(c.height);
}

float camera_image_area(PassConstants c) {
    return 4.0 * c.tan_half_yfov * c.tan_half_yfov * c.aspect;
}

float camera_direction_pdf(PassConstants c, float cos_theta) {
    return 1.0 / (camera_image_area(c) * cos_theta * cos_theta * cos_theta);
}

float camera_importance(PassConstants c, float cos_theta) {
    return float(c.width) * float(c.height) * camera_direction_pdf(c, cos_theta);
}

#endif
