//! The viewer's camera: orbit about a target, pan, zoom and fly, from mouse and keys. Starts
//! as the scene's camera exactly (so that the first image is the offline render's) and keeps
//! the world's +Y up once the user moves it (glTF's up axis).

use glam::Vec3;

use crate::scene::RenderCamera;

/// Radians of turn per pixel of mouse movement, for orbit and mouse look.
const TURN_PER_PIXEL: f32 = 0.005;
/// Zoom per wheel step: the target distance shrinks or grows by this factor.
const ZOOM_STEP: f32 = 0.85;
/// Flying speed change per wheel step.
const SPEED_STEP: f32 = 1.25;
/// Pitch stays this far from straight up or down, where yaw would be undefined.
const PITCH_LIMIT: f32 = 1.55;

#[derive(Clone, Debug)]
pub struct CameraController {
    /// The camera as the scene gives it, before any move: shown exactly until one.
    initial: RenderCamera,
    moved: bool,
    eye: Vec3,
    yaw: f32,
    pitch: f32,
    /// The orbit's centre lies this far ahead of the eye.
    distance: f32,
    half_height: f32,
    aspect: f32,
    /// Flying speed, scene units per second.
    pub speed: f32,
}

impl CameraController {
    /// Starts at `camera`; `scene_radius` sets the first orbit distance and flying speed.
    pub fn new(camera: RenderCamera, scene_center: Vec3, scene_radius: f32) -> Self {
        let forward = camera.forward.normalize();
        let pitch = forward.y.clamp(-1.0, 1.0).asin().clamp(-PITCH_LIMIT, PITCH_LIMIT);
        let yaw = forward.x.atan2(-forward.z);
        let radius = scene_radius.max(1e-3);
        let distance = (scene_center - camera.origin).dot(forward).max(0.1 * radius);
        Self {
            initial: camera,
            moved: false,
            eye: camera.origin,
            yaw,
            pitch,
            distance,
            half_height: camera.half_height,
            aspect: camera.aspect,
            speed: 0.5 * radius,
        }
    }

    fn forward(&self) -> Vec3 {
        Vec3::new(
            self.yaw.sin() * self.pitch.cos(),
            self.pitch.sin(),
            -self.yaw.cos() * self.pitch.cos(),
        )
    }

    fn right(&self) -> Vec3 {
        Vec3::new(self.yaw.cos(), 0.0, self.yaw.sin())
    }

    fn target(&self) -> Vec3 {
        self.eye + self.forward() * self.distance
    }

    /// The camera to render with.
    pub fn camera(&self) -> RenderCamera {
        if !self.moved {
            return self.initial;
        }
        let forward = self.forward();
        let right = self.right();
        RenderCamera {
            origin: self.eye,
            right,
            up: right.cross(forward).normalize(),
            forward,
            half_height: self.half_height,
            aspect: self.aspect,
            near: self.initial.near,
            orthographic: self.initial.orthographic,
        }
    }

    /// Turns about the target by a mouse drag of (dx, dy) pixels.
    pub fn orbit(&mut self, dx: f32, dy: f32) {
        let target = self.target();
        self.yaw += dx * TURN_PER_PIXEL;
        self.pitch = (self.pitch - dy * TURN_PER_PIXEL).clamp(-PITCH_LIMIT, PITCH_LIMIT);
        self.eye = target - self.forward() * self.distance;
        self.moved = true;
    }

    /// Slides eye and target across the view so that the target follows a drag of (dx, dy)
    /// pixels on an image `height` pixels tall.
    pub fn pan(&mut self, dx: f32, dy: f32, height: u32) {
        // An orthographic image is as wide at every depth; a pinhole's widens with distance.
        let depth = if self.initial.orthographic { 1.0 } else { self.distance };
        let per_pixel = 2.0 * self.half_height * depth / height.max(1) as f32;
        let up = self.right().cross(self.forward()).normalize();
        self.eye += (-self.right() * dx + up * dy) * per_pixel;
        self.moved = true;
    }

    /// Moves towards the target (positive steps) or away from it; an orthographic camera,
    /// which distance does not enlarge, narrows its image instead.
    pub fn zoom(&mut self, steps: f32) {
        if self.initial.orthographic {
            self.half_height *= ZOOM_STEP.powf(steps);
            self.moved = true;
            return;
        }
        let target = self.target();
        self.distance *= ZOOM_STEP.powf(steps);
        self.eye = target - self.forward() * self.distance;
        self.moved = true;
    }

    /// Turns the view in place by a mouse movement of (dx, dy) pixels (fly mode).
    pub fn look(&mut self, dx: f32, dy: f32) {
        self.yaw += dx * TURN_PER_PIXEL;
        self.pitch = (self.pitch - dy * TURN_PER_PIXEL).clamp(-PITCH_LIMIT, PITCH_LIMIT);
        self.moved = true;
    }

    /// Flies for `seconds` along (right, up, forward) as `direction` says (each -1, 0 or 1).
    pub fn fly(&mut self, direction: Vec3, seconds: f32) {
        if direction == Vec3::ZERO {
            return;
        }
        let step = direction.normalize() * self.speed * seconds;
        self.eye += self.right() * step.x + Vec3::Y * step.y + self.forward() * step.z;
        self.moved = true;
    }

    /// Changes the flying speed by wheel steps.
    pub fn change_speed(&mut self, steps: f32) {
        self.speed *= SPEED_STEP.powf(steps);
    }

    /// Whether the camera left the scene's camera.
    pub fn moved(&self) -> bool {
        self.moved
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start() -> CameraController {
        let camera = RenderCamera::from_transform(
            glam::Mat4::look_at_rh(Vec3::new(0.0, 1.0, 5.0), Vec3::new(0.0, 1.0, 0.0), Vec3::Y).inverse(),
            0.8,
            1.5,
        );
        CameraController::new(camera, Vec3::new(0.0, 1.0, 0.0), 2.0)
    }

    #[test]
    fn the_first_camera_is_the_scene_s_exactly() {
        let controller = start();
        assert!(!controller.moved());
        assert_eq!(controller.camera(), controller.initial);
    }

    #[test]
    fn orbit_keeps_the_target_and_its_distance() {
        let mut controller = start();
        let target = controller.target();
        controller.orbit(120.0, -40.0);
        let camera = controller.camera();
        assert!((controller.target() - target).length() < 1e-4);
        assert!(((camera.origin - target).length() - 5.0).abs() < 1e-4);
        assert!((camera.forward.dot(camera.right)).abs() < 1e-5 && (camera.up.dot(camera.forward)).abs() < 1e-5);
        assert!(camera.up.y > 0.0, "up stays up");
    }

    #[test]
    fn an_orthographic_camera_stays_orthographic_and_zoom_narrows_its_image() {
        let camera = RenderCamera {
            half_height: 2.0,
            orthographic: true,
            ..start().initial
        };
        let mut controller = CameraController::new(camera, Vec3::new(0.0, 1.0, 0.0), 2.0);
        controller.zoom(1.0);
        let zoomed = controller.camera();
        assert!(zoomed.orthographic);
        assert!((zoomed.half_height - 2.0 * ZOOM_STEP).abs() < 1e-6);
        assert_eq!(zoomed.origin, camera.origin, "moving closer would change nothing");
        // A drag of the image's height slides the view by the image's height, at any depth.
        let mut controller = CameraController::new(camera, Vec3::new(0.0, 1.0, 0.0), 2.0);
        controller.pan(0.0, 400.0, 400);
        assert!((controller.camera().origin.y - (camera.origin.y + 4.0)).abs() < 1e-4);
    }

    #[test]
    fn pan_zoom_and_fly_move_where_they_say() {
        let mut controller = start();
        controller.pan(100.0, 0.0, 400);
        assert!(controller.camera().origin.x < 0.0, "dragging right moves the view left");
        let mut controller = start();
        controller.zoom(1.0);
        assert!((controller.camera().origin.z - (5.0 - 5.0 * (1.0 - ZOOM_STEP))).abs() < 1e-4);
        let mut controller = start();
        controller.fly(Vec3::new(0.0, 0.0, 1.0), 1.0);
        assert!((controller.camera().origin - Vec3::new(0.0, 1.0, 4.0)).length() < 1e-4);
        controller.change_speed(2.0);
        assert!((controller.speed - 1.0 * SPEED_STEP * SPEED_STEP).abs() < 1e-5);
    }
}
