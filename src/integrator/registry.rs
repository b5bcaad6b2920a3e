//! The one place that maps an `IntegratorKind` to its implementation. Adding an integrator
//! adds a variant to `IntegratorKind` and an arm here (`docs/EXTENDING.md`).

use crate::gpu::GpuResult;
use crate::interface::PassConstants;

use super::bdpt::Bdpt;
use super::contract::{Integrator, Setup};
use super::megakernel::Megakernel;
use super::pmlt::Pmlt;
use super::settings::{IntegratorKind, RenderSettings};
use super::wavefront::Wavefront;

/// Checks what the chosen integrator asks of the settings, before anything is uploaded.
pub fn check(settings: &RenderSettings) -> GpuResult<()> {
    match settings.integrator {
        IntegratorKind::Wavefront => Wavefront::check(settings),
        IntegratorKind::Megakernel => Ok(()),
        IntegratorKind::Bdpt => Bdpt::check(settings),
        IntegratorKind::Pmlt => Pmlt::check(settings),
    }
}

/// Creates the integrator the settings ask for, which fills its own fields of `constants`.
pub fn create(setup: &Setup<'_>, constants: &mut PassConstants) -> GpuResult<Box<dyn Integrator>> {
    Ok(match setup.settings.integrator {
        IntegratorKind::Wavefront => Box::new(Wavefront::new(setup, constants)?),
        IntegratorKind::Megakernel => Box::new(Megakernel::new(setup)?),
        IntegratorKind::Bdpt => Box::new(Bdpt::new(setup, constants)?),
        IntegratorKind::Pmlt => Box::new(Pmlt::new(setup, constants)?),
    })
}
