//! The pinhole camera of a render: from the scene's camera, or framed around the scene's
//! bounds when it has none. `ray` is the CPU twin of the generate kernel's camera rays.

use glam::{Mat4, Vec2, Vec3};

use super::Scene;

/// Vertical field of view used when framing a scene that has no camera.
pub const FRAMING_YFOV: f32 = std::f32::consts::FRAC_PI_4;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PinholeCamera {
    pub origin: Vec3,
    /// Unit vectors of the camera frame: +X right, +Y up, looking down -Z.
    pub right: Vec3,
    pub up: Vec3,
    pub forward: Vec3,
    pub tan_half_yfov: f32,
    /// Width over height of the output, which wins over the file's aspect ratio.
    pub aspect: f32,
}

impl PinholeCamera {
    pub fn from_transform(world_from_camera: Mat4, yfov: f32, aspect: f32) -> Self {
        // Scale in the camera's node must not change the field of view: keep directions only.
        Self {
            origin: world_from_camera.transform_point3(Vec3::ZERO),
            right: world_from_camera.transform_vector3(Vec3::X).normalize(),
            up: world_from_camera.transform_vector3(Vec3::Y).normalize(),
            forward: world_from_camera.transform_vector3(Vec3::NEG_Z).normalize(),
            tan_half_yfov: (yfov * 0.5).tan(),
            aspect,
        }
    }

    /// The scene's camera, or one looking down -Z at the whole scene (and a note saying so).
    pub fn for_scene(scene: &Scene, width: u32, height: u32) -> (Self, Option<String>) {
        let aspect = width as f32 / height as f32;
        if let Some(camera) = &scene.camera {
            return (
                Self::from_transform(camera.world_from_camera, camera.yfov, aspect),
                None,
            );
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

    /// The ray through image position `pixel + jitter` (pixels, row 0 at the top), as
    /// (origin, unit direction). The box filter comes from `jitter` uniform in [0, 1)^2.
    pub fn ray(&self, pixel: Vec2, jitter: Vec2, width: u32, height: u32) -> (Vec3, Vec3) {
        let p = pixel + jitter;
        let x = (2.0 * p.x / width as f32 - 1.0) * self.tan_half_yfov * self.aspect;
        let y = (1.0 - 2.0 * p.y / height as f32) * self.tan_half_yfov;
        (self.origin, (self.right * x + self.up * y + self.forward).normalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_image_centre_looks_forward_and_corners_span_the_fov() {
        let camera = PinholeCamera::from_transform(Mat4::from_translation(Vec3::new(0.0, 0.0, 3.9)), 0.686, 1.0);
        let (origin, centre) = camera.ray(Vec2::new(32.0, 32.0), Vec2::ZERO, 64, 64);
        assert_eq!(origin, Vec3::new(0.0, 0.0, 3.9));
        assert!((centre - Vec3::NEG_Z).length() < 1e-6);
        let (_, top) = camera.ray(Vec2::new(32.0, 0.0), Vec2::ZERO, 64, 64);
        assert!(
            (top.y.atan2(-top.z) - 0.343).abs() < 1e-3,
            "row 0 is the top, half the fov up"
        );
        let wide = PinholeCamera { aspect: 2.0, ..camera };
        let (_, left) = wide.ray(Vec2::new(0.0, 32.0), Vec2::ZERO, 128, 64);
        assert!(
            left.x < 0.0 && (left.x / left.z - 2.0 * (0.343f32).tan()).abs() < 1e-4,
            "aspect widens x"
        );
    }

    #[test]
    fn scale_in_the_camera_node_does_not_change_the_view() {
        let plain = PinholeCamera::from_transform(Mat4::IDENTITY, 0.8, 1.0);
        let scaled = PinholeCamera::from_transform(Mat4::from_scale(Vec3::splat(0.9999999)), 0.8, 1.0);
        let (_, a) = plain.ray(Vec2::new(3.0, 5.0), Vec2::splat(0.5), 16, 16);
        let (_, b) = scaled.ray(Vec2::new(3.0, 5.0), Vec2::splat(0.5), 16, 16);
        assert!((a - b).length() < 1e-6);
    }
}
