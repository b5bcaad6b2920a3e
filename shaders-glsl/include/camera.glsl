// The camera (src/scene/camera.rs is its CPU twin), a pinhole or orthographic: the ray through
// an image position, and, for light subpaths that connect to a pinhole, the projection of a
// point onto the image with the camera's density of directions and its importance.
//
// An orthographic camera's image lies on the plane through camera_origin, 2 ymag high in scene
// units, its rays all along camera_forward. A pinhole's lies on the plane at distance 1 in front
// of it, 2 tan(yfov / 2) high and `aspect` times that wide: its area A = 4 tan^2(yfov / 2) aspect. A ray through a uniform
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

bool camera_is_orthographic(PassConstants c) {
    return c.camera_orthographic != 0u;
}

// Where image position p (pixels, row 0 at the top) lies: right and up of the image's centre,
// on the plane at distance 1 (pinhole) or through camera_origin (orthographic).
vec2 camera_image_offset(PassConstants c, vec2 p) {
    return vec2((2.0 * p.x / float(c.width) - 1.0) * c.camera_half_height * c.aspect,
                (1.0 - 2.0 * p.y / float(c.height)) * c.camera_half_height);
}

// The camera ray through image position p: it starts on the near plane.
void camera_ray_through(PassConstants c, vec2 p, out vec3 origin, out vec3 direction) {
    vec2 offset = camera_image_offset(c, p);
    if (camera_is_orthographic(c)) {
        direction = c.camera_forward;
        origin = c.camera_origin + c.camera_right * offset.x + c.camera_up * offset.y + c.camera_forward * c.camera_near;
        return;
    }
    direction = normalize(c.camera_right * offset.x + c.camera_up * offset.y + c.camera_forward);
    origin = c.camera_origin + direction * (c.camera_near / dot(direction, c.camera_forward));
}

// Whether light paths may reach the camera through a connection: a pinhole is a point every
// direction meets; an orthographic camera's parallel rays are met by no sampled direction,
// so its images come from camera paths alone (light tracing strategies leave it out).
bool camera_takes_light_paths(PassConstants c) {
    return !camera_is_orthographic(c);
}

// How far a camera ray along unit `direction` runs from the pinhole before it starts, on the
// near plane; a path's first segment adds it to its hit distance.
float camera_ray_start(PassConstants c, vec3 direction) {
    return c.camera_near / dot(direction, c.camera_forward);
}

// Where the segment from `point` (beyond the near plane) to the pinhole crosses the near
// plane: the end of a light path's last segment as far as blockers go.
vec3 camera_near_point(PassConstants c, vec3 point) {
    vec3 d = point - c.camera_origin;
    return c.camera_origin + d * (c.camera_near / dot(d, c.camera_forward));
}

// Where `point` appears on the image (false when it is before the near plane, behind a
// pinhole or outside the image), and the cosine between the direction to it and the forward
// axis (1 for parallel rays).
bool camera_project(PassConstants c, vec3 point, out vec2 image_position, out float cos_theta) {
    vec3 d = point - c.camera_origin;
    float z = dot(d, c.camera_forward);
    bool orthographic = camera_is_orthographic(c);
    image_position = vec2(-1.0);
    cos_theta = 0.0;
    if (!(z >= c.camera_near) || (!(z > 0.0) && !orthographic)) {
        return false;
    }
    // A pinhole divides by depth; parallel rays keep the offset they have.
    float w = orthographic ? 1.0 : z;
    float sx = dot(d, c.camera_right) / w;
    float sy = dot(d, c.camera_up) / w;
    image_position = vec2((sx / (c.camera_half_height * c.aspect) + 1.0) * 0.5 * float(c.width),
                          (1.0 - sy / c.camera_half_height) * 0.5 * float(c.height));
    cos_theta = orthographic ? 1.0 : z / length(d);
    return image_position.x >= 0.0 && image_position.x < float(c.width) && image_position.y >= 0.0 &&
           image_position.y < float(c.height);
}

float camera_image_area(PassConstants c) {
    return 4.0 * c.camera_half_height * c.camera_half_height * c.aspect;
}

float camera_direction_pdf(PassConstants c, float cos_theta) {
    return 1.0 / (camera_image_area(c) * cos_theta * cos_theta * cos_theta);
}

float camera_importance(PassConstants c, float cos_theta) {
    return float(c.width) * float(c.height) * camera_direction_pdf(c, cos_theta);
}

#endif
