//! The camera of a render, a pinhole or orthographic: from the scene's camera, or framed
//! around the scene's bounds when it has none. `ray` is the CPU twin of the generate kernel's
//! camera rays, and `project`, `direction_pdf` and `importance` of what `camera.glsl` gives
//! light subpaths that connect to a pinhole (the image lies on the plane at distance 1,
//! `image_area` large). An orthographic camera's rays are parallel: no light path can meet
//! one, so light tracing strategies leave it alone (pbrt-v4 does the same).
//! Surfaces nearer than the view depth `near` are cut away, as Mitsuba's near_clip cuts them:
//! camera rays start on that plane and light paths do not reach the camera from before it.

use glam::{Mat4, Vec2, Vec3};

use super::{Projection, Scene};

/// Vertical field of view used when framing a scene that has no camera.
pub const FRAMING_YFOV: f32 = std::f32::consts::FRAC_PI_4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RenderCamera {
    /// The pinhole, or for an orthographic camera the centre of the image's plane.
    pub origin: Vec3,
    /// Unit vectors of the camera frame: +X right, +Y up, looking down -Z.
    pub right: Vec3,
    pub up: Vec3,
    pub forward: Vec3,
    /// Half the image's height: on the plane at distance 1 for a pinhole (tan(yfov / 2)), in
    /// scene units for an orthographic camera (its ymag).
    pub half_height: f32,
    /// Width over height of the output, which wins over the file's aspect ratio.
    pub aspect: f32,
    /// View depth (along `forward`) below which nothing is seen: the file's znear.
    pub near: f32,
    /// Rays run along `forward` from the image's place on the plane through `origin`.
    pub orthographic: bool,
}

impl RenderCamera {
    /// A pinhole at the transform's origin.
    pub fn from_transform(world_from_camera: Mat4, yfov: f32, aspect: f32) -> Self {
        // Scale in the camera's node must not change the field of view: keep directions only.
        Self {
            origin: world_from_camera.transform_point3(Vec3::ZERO),
            right: world_from_camera.transform_vector3(Vec3::X).normalize(),
            up: world_from_camera.transform_vector3(Vec3::Y).normalize(),
            forward: world_from_camera.transform_vector3(Vec3::NEG_Z).normalize(),
            half_height: (yfov * 0.5).tan(),
            aspect,
            near: 0.0,
            orthographic: false,
        }
    }

    /// The scene's `camera` for an output of shape `aspect`. An orthographic camera keeps its
    /// ymag and takes the output's aspect, as a pinhole keeps its yfov; like the field of
    /// view, its magnification is the file's alone, whatever scale the node has.
    pub fn from_camera(camera: &super::Camera, aspect: f32) -> Self {
        match camera.projection {
            Projection::Perspective { yfov } => Self {
                near: camera.znear,
                ..Self::from_transform(camera.world_from_camera, yfov, aspect)
            },
            Projection::Orthographic { ymag, .. } => Self {
                near: camera.znear,
                half_height: ymag,
                orthographic: true,
                ..Self::from_transform(camera.world_from_camera, FRAMING_YFOV, aspect)
            },
        }
    }

    /// The scene's camera, or one looking down -Z at the whole scene (and a note saying so).
    pub fn for_scene(scene: &Scene, width: u32, height: u32) -> (Self, Option<String>) {
        let aspect = width as f32 / height as f32;
        if let Some(camera) = &scene.camera {
            return (Self::from_camera(camera, aspect), None);
        }
        let (lo, hi) = scene.bounds().unwrap_or((Vec3::splat(-1.0), Vec3::splat(1.0)));
        let center = (lo + hi) * 0.5;
        let radius = ((hi - lo) * 0.5).length().max(1e-3);
        // Far enough that the bounding sphere fits the narrower of the two fields of view.
        let tan_half = (FRAMING_YFOV * 0.5).tan() * aspect.min(1.0);
        let distance = radius / tan_half.atan().sin();
        let transform = Mat4::from_translation(center + Vec3::Z * distance);
        let note = format!(
            "{}: no camera; framing the scene's bounds from {:.3?}, looking down -Z",
            scene.source.display(),
            (center + Vec3::Z * distance).to_array()
        );
        (Self::from_transform(transform, FRAMING_YFOV, aspect), Some(note))
    }

    /// The pass constants' camera fields (`camera.glsl`).
    pub fn fill(&self, constants: &mut crate::interface::PassConstants) {
        constants.camera_origin = self.origin;
        constants.camera_half_height = self.half_height;
        constants.camera_right = self.right;
        constants.aspect = self.aspect;
        constants.camera_up = self.up;
        constants.camera_forward = self.forward;
        constants.camera_near = self.near;
        constants.camera_orthographic = u32::from(self.orthographic);
    }

    /// Where image position `p` (pixels, row 0 at the top) lies on the image: right and up
    /// of its centre, on the plane at distance 1 (pinhole) or through `origin`.
    fn image_offset(&self, p: Vec2, width: u32, height: u32) -> Vec2 {
        Vec2::new(
            (2.0 * p.x / width as f32 - 1.0) * self.half_height * self.aspect,
            (1.0 - 2.0 * p.y / height as f32) * self.half_height,
        )
    }

    /// The ray through image position `pixel + jitter` (pixels, row 0 at the top), as
    /// (origin, unit direction); the origin lies on the near plane. The box filter comes from
    /// `jitter` uniform in [0, 1)^2.
    pub fn ray(&self, pixel: Vec2, jitter: Vec2, width: u32, height: u32) -> (Vec3, Vec3) {
        let offset = self.image_offset(pixel + jitter, width, height);
        if self.orthographic {
            let origin = self.origin + self.right * offset.x + self.up * offset.y + self.forward * self.near;
            return (origin, self.forward);
        }
        let direction = (self.right * offset.x + self.up * offset.y + self.forward).normalize();
        (self.ray_origin(direction), direction)
    }

    /// Where a pinhole's camera ray along unit `direction` starts: on the near plane.
    fn ray_origin(&self, direction: Vec3) -> Vec3 {
        self.origin + direction * (self.near / direction.dot(self.forward))
    }

    /// Where `point` appears on a `width` x `height` image (pixels, row 0 at the top) and the
    /// cosine between the direction to it and the forward axis; `None` before the near plane
    /// (or behind the camera) or outside the image.
    pub fn project(&self, point: Vec3, width: u32, height: u32) -> Option<(Vec2, f32)> {
        let d = point - self.origin;
        let z = d.dot(self.forward);
        if z.is_nan() || z < self.near || (z <= 0.0 && !self.orthographic) {
            return None;
        }
        // A pinhole divides by depth; parallel rays keep the offset they have.
        let (w, cos_theta) = if self.orthographic {
            (1.0, 1.0)
        } else {
            (z, z / d.length())
        };
        let sx = d.dot(self.right) / w;
        let sy = d.dot(self.up) / w;
        let position = Vec2::new(
            (sx / (self.half_height * self.aspect) + 1.0) * 0.5 * width as f32,
            (1.0 - sy / self.half_height) * 0.5 * height as f32,
        );
        let inside = position.x >= 0.0 && position.x < width as f32 && position.y >= 0.0 && position.y < height as f32;
        inside.then_some((position, cos_theta))
    }

    /// Whether a point can send light to the camera through a connection (a pinhole, a point
    /// every direction meets) rather than only along camera rays (parallel ones, which no
    /// sampled direction meets).
    pub fn takes_light_paths(&self) -> bool {
        !self.orthographic
    }

    /// A pinhole's image area on the plane at distance 1.
    pub fn image_area(&self) -> f32 {
        4.0 * self.half_height * self.half_height * self.aspect
    }

    /// A pinhole's density over directions of a ray through a uniform position on the whole
    /// image, at `cos_theta` to the forward axis.
    pub fn direction_pdf(&self, cos_theta: f32) -> f32 {
        1.0 / (self.image_area() * cos_theta * cos_theta * cos_theta)
    }

    /// What turns radiance arriving at a pinhole along a direction into its pixel's mean:
    /// integrated over the directions through one pixel, it gives 1.
    pub fn importance(&self, cos_theta: f32, width: u32, height: u32) -> f32 {
        width as f32 * height as f32 * self.direction_pdf(cos_theta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_centre_looks_forward_and_corners_span_the_fov() {
        let camera = RenderCamera::from_transform(Mat4::from_translation(Vec3::new(0.0, 0.0, 3.9)), 0.686, 1.0);
        let (origin, centre) = camera.ray(Vec2::new(32.0, 32.0), Vec2::ZERO, 64, 64);
        assert_eq!(origin, Vec3::new(0.0, 0.0, 3.9));
        assert!((centre - Vec3::NEG_Z).length() < 1e-6);
        let (_, top) = camera.ray(Vec2::new(32.0, 0.0), Vec2::ZERO, 64, 64);
        assert!(
            (top.y.atan2(-top.z) - 0.343).abs() < 1e-3,
            "row 0 is the top, half the fov up"
        );
        let wide = RenderCamera { aspect: 2.0, ..camera };
        let (_, left) = wide.ray(Vec2::new(0.0, 32.0), Vec2::ZERO, 128, 64);
        assert!(
            left.x < 0.0 && (left.x / left.z - 2.0 * (0.343f32).tan()).abs() < 1e-4,
            "aspect widens x"
        );
    }

    #[test]
    fn a_point_on_a_ray_projects_to_the_ray_s_image_position() {
        let camera = RenderCamera::from_transform(
            Mat4::from_rotation_y(0.4) * Mat4::from_translation(Vec3::new(1.0, -2.0, 3.0)),
            0.9,
            1.7,
        );
        let (width, height) = (97, 57);
        for i in 0..1000u32 {
            let pixel = Vec2::new((i * 37 % width) as f32, (i * 11 % height) as f32);
            // Away from the image edge, where rounding may put a point a hair outside.
            let jitter = Vec2::new(((i % 7) as f32 + 0.5) / 7.0, ((i % 5) as f32 + 0.5) / 5.0);
            let (origin, direction) = camera.ray(pixel, jitter, width, height);
            let distance = 0.1 + (i % 13) as f32;
            let (position, cos_theta) = camera
                .project(origin + direction * distance, width, height)
                .expect("a point on a camera ray is on the image");
            assert!(
                (position - (pixel + jitter)).length() < 2e-3,
                "{position} vs {}",
                pixel + jitter
            );
            assert!((cos_theta - direction.dot(camera.forward)).abs() < 1e-5);
        }
        assert_eq!(
            camera.project(camera.origin - camera.forward, width, height),
            None,
            "behind"
        );
        assert_eq!(
            camera.project(camera.origin + camera.right * 10.0 + camera.forward, width, height),
            None
        );
    }

    /// Integrated over the sphere (by theta and phi), the direction density is 1 and one
    /// pixel's importance is 1: the formulas agree with what the projection covers.
    #[test]
    fn the_direction_density_and_a_pixel_s_importance_integrate_to_one() {
        let camera = RenderCamera::from_transform(Mat4::IDENTITY, 0.8, 1.5);
        let (width, height) = (6u32, 4u32);
        let steps = 1500;
        let (mut density, mut importance) = (0.0f64, 0.0f64);
        let d_theta = 0.8 / steps as f64;
        let d_phi = std::f64::consts::TAU / steps as f64;
        for i in 0..steps {
            let theta = (i as f64 + 0.5) * d_theta;
            for j in 0..steps {
                let phi = (j as f64 + 0.5) * d_phi;
                let direction = Vec3::new(
                    (theta.sin() * phi.cos()) as f32,
                    (theta.sin() * phi.sin()) as f32,
                    -theta.cos() as f32,
                );
                let Some((position, cos_theta)) = camera.project(direction, width, height) else {
                    continue;
                };
                let solid_angle = theta.sin() * d_theta * d_phi;
                density += f64::from(camera.direction_pdf(cos_theta)) * solid_angle;
                if position.x < 1.0 && position.y < 1.0 {
                    importance += f64::from(camera.importance(cos_theta, width, height)) * solid_angle;
                }
            }
        }
        assert!((density - 1.0).abs() < 2e-3, "{density}");
        assert!((importance - 1.0).abs() < 1e-2, "{importance}");
    }

    #[test]
    fn rays_start_on_the_near_plane_and_nothing_before_it_projects() {
        let unclipped = RenderCamera::from_transform(
            Mat4::from_translation(Vec3::new(0.5, 1.0, 2.0)) * Mat4::from_rotation_x(0.3),
            0.9,
            1.3,
        );
        let near = 0.25;
        let camera = RenderCamera { near, ..unclipped };
        let (width, height) = (40, 30);
        for i in 0..200u32 {
            let pixel = Vec2::new((i * 7 % width) as f32, (i * 3 % height) as f32);
            let jitter = Vec2::new(((i % 5) as f32 + 0.5) / 5.0, ((i % 3) as f32 + 0.5) / 3.0);
            let (origin, direction) = camera.ray(pixel, jitter, width, height);
            let (pinhole, unclipped_direction) = unclipped.ray(pixel, jitter, width, height);
            assert_eq!(pinhole, camera.origin);
            assert!((direction - unclipped_direction).length() < 1e-6);
            assert!(((origin - camera.origin).dot(camera.forward) - near).abs() < 1e-5);
            // Along the ray, just before the plane and just beyond it.
            let start = near / direction.dot(camera.forward);
            assert_eq!(
                camera.project(camera.origin + direction * start * 0.99, width, height),
                None
            );
            assert!(camera
                .project(camera.origin + direction * start * 1.01, width, height)
                .is_some());
        }
    }

    #[test]
    fn orthographic_rays_are_parallel_and_project_back_to_their_pixels() {
        let transform = Mat4::from_translation(Vec3::new(1.0, -2.0, 3.0)) * Mat4::from_rotation_y(0.4);
        let camera = RenderCamera {
            half_height: 2.5,
            near: 0.3,
            orthographic: true,
            ..RenderCamera::from_transform(transform, 0.9, 1.6)
        };
        let (width, height) = (80u32, 50u32);
        let (centre, direction) = camera.ray(Vec2::new(40.0, 25.0), Vec2::ZERO, width, height);
        assert!((centre - (camera.origin + camera.forward * 0.3)).length() < 1e-5);
        assert_eq!(direction, camera.forward);
        // Row 0 is the top, ymag above the centre; column 0 is aspect x ymag to the left.
        let (top_left, _) = camera.ray(Vec2::ZERO, Vec2::ZERO, width, height);
        let offset = top_left - centre;
        assert!((offset.dot(camera.up) - 2.5).abs() < 1e-5 && (offset.dot(camera.right) + 4.0).abs() < 1e-5);
        for i in 0..500u32 {
            let pixel = Vec2::new((i * 37 % width) as f32, (i * 11 % height) as f32);
            let jitter = Vec2::new(((i % 7) as f32 + 0.5) / 7.0, ((i % 5) as f32 + 0.5) / 5.0);
            let (origin, direction) = camera.ray(pixel, jitter, width, height);
            assert_eq!(direction, camera.forward);
            let distance = 0.01 + (i % 13) as f32 * 0.7;
            let Some((position, cos_theta)) = camera.project(origin + direction * distance, width, height) else {
                panic!("pixel {pixel} + {jitter}: a point on a camera ray is on the image");
            };
            assert!((position - (pixel + jitter)).length() < 2e-3, "{position}");
            assert_eq!(cos_theta, 1.0);
            // Before the near plane, even in front of the camera's own origin, nothing is seen.
            assert_eq!(camera.project(origin - direction * 0.01, width, height), None);
        }
        assert!(!camera.takes_light_paths());
    }

    #[test]
    fn scale_in_the_camera_node_does_not_change_the_view() {
        let plain = RenderCamera::from_transform(Mat4::IDENTITY, 0.8, 1.0);
        let scaled = RenderCamera::from_transform(Mat4::from_scale(Vec3::splat(0.9999999)), 0.8, 1.0);
        let (_, a) = plain.ray(Vec2::new(3.0, 5.0), Vec2::splat(0.5), 16, 16);
        let (_, b) = scaled.ray(Vec2::new(3.0, 5.0), Vec2::splat(0.5), 16, 16);
        assert!((a - b).length() < 1e-6);
    }
}
