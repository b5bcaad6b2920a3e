//! `wavetrace view`: a window that shows the scene converge. Each frame adds sample passes
//! to the film (`Renderer::render_pass`), runs the display kernel on it and copies the
//! result onto a swapchain image, all on the queue the passes use (`gpu::Presenter`); the
//! camera moves with mouse and keys and restarts the accumulation; integrator, schedule,
//! light selection and depth switch live (docs/VIEWER.md).

mod app;
pub mod camera;
mod controls;
mod display;
pub mod overlay;
pub mod shots;

use std::path::PathBuf;

use crate::film::Display;
use crate::gpu::{Context, RenderDoc};
use crate::integrator::RenderSettings;
use crate::lights::CullingFormat;
use crate::scene::{ImportOptions, Scene};

/// Makes the render settings for a scene on the viewer's device (from the command line).
pub type SettingsFor<'a> = dyn Fn(&Scene, &Context) -> Result<RenderSettings, String> + 'a;

pub struct ViewConfig<'a> {
    pub scene: Scene,
    /// The settings of one pass (`spp`: samples per pass) for a scene, as the command line
    /// asks; the viewer's keys change some of them.
    pub settings: &'a SettingsFor<'a>,
    /// Light culling for the path tracers (BDPT renders without).
    pub culling_requested: CullingFormat,
    /// Stop adding samples at this many per pixel; `None`: at the sample sequence's end.
    pub target_spp: Option<u32>,
    pub display: Display,
    /// Where F5 and P write.
    pub shots: PathBuf,
    /// RenderDoc's API where wavetrace runs under it (F12, `--capture`).
    pub renderdoc: Option<RenderDoc>,
    /// `--capture`: capture the first sample pass.
    pub capture_first_pass: bool,
    /// How dropped scenes are read.
    pub load_options: ImportOptions,
}

#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    #[error(
        "`view` needs a display and there is none ({0}); on a machine without one, use `render`, \
         or start a virtual display (e.g. `xvfb-run wavetrace view ...`)"
    )]
    NoDisplay(String),
    #[error("{0}")]
    Failed(String),
}

/// Opens the window and runs until it is closed.
pub fn run(config: ViewConfig<'_>) -> Result<(), ViewerError> {
    let has_display = ["DISPLAY", "WAYLAND_DISPLAY"]
        .iter()
        .any(|v| std::env::var_os(v).is_some_and(|value| !value.is_empty()));
    if !has_display {
        return Err(ViewerError::NoDisplay(
            "neither DISPLAY nor WAYLAND_DISPLAY is set".into(),
        ));
    }
    let event_loop = winit::event_loop::EventLoop::new().map_err(|e| ViewerError::NoDisplay(e.to_string()))?;
    let mut app = app::App::new(config);
    event_loop
        .run_app(&mut app)
        .map_err(|e| ViewerError::Failed(e.to_string()))?;
    app.finish()
}
