//! Light from infinitely far away: a constant radiance or an equirectangular map around the
//! scene (`--env`, `--env-color`). `map` loads images, `gpu` uploads them and builds their
//! sampling tree; the shaders' side is `environment.glsl`.

mod gpu;
mod map;

use std::sync::Arc;

use glam::Vec3;

pub use gpu::GpuEnvironment;
pub use map::{EnvironmentError, EnvironmentMap};

/// Where the environment's radiance comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum EnvironmentRadiance {
    Constant(Vec3),
    Map(Arc<EnvironmentMap>),
}

/// An environment as a render uses it.
#[derive(Clone, Debug, PartialEq)]
pub struct Environment {
    pub radiance: EnvironmentRadiance,
    /// Multiplies the radiance (`--env-strength`).
    pub strength: f32,
    /// Turns the map about +Y (`--env-rotation`), degrees; positive turns it counter-clockwise
    /// seen from above.
    pub rotation_degrees: f32,
}

impl Environment {
    pub fn constant(radiance: Vec3) -> Self {
        Self {
            radiance: EnvironmentRadiance::Constant(radiance),
            strength: 1.0,
            rotation_degrees: 0.0,
        }
    }

    pub fn map(map: EnvironmentMap) -> Self {
        Self {
            radiance: EnvironmentRadiance::Map(Arc::new(map)),
            strength: 1.0,
            rotation_degrees: 0.0,
        }
    }
}
