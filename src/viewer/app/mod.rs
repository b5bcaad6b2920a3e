//! The viewer's event loop: the window and its device, the frame (sample passes, display,
//! present), and what mouse, keys and dropped files do to it.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use glam::Vec3;
use raw_window_handle::{HasDisplayHandle, HasWindowHandle};
use winit::application::ApplicationHandler;
use winit::dpi::PhysicalSize;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow};
use winit::keyboard::{Key, ModifiersState};
use winit::window::{Window, WindowId};

use crate::gpu::{Context, ContextDesc, Presenter};
use crate::integrator::{IntegratorKind, PassReport, RenderSettings, Renderer, Schedule};
use crate::lights::{CullingFormat, LightSelection};
use crate::scene::RenderCamera;

use super::camera::CameraController;
use super::controls;
use super::display::DisplayKernel;
use super::overlay::Overlay;
use super::{ViewConfig, ViewerError};

mod input;

/// Passes are added until a frame has taken this long (at least one pass a frame), so that
/// fast devices show more samples a frame and slow ones still answer between passes.
const FRAME_BUDGET: Duration = Duration::from_millis(30);
/// How often the title's figures change.
const TITLE_EVERY: Duration = Duration::from_millis(250);
const INTEGRATORS: [IntegratorKind; 3] = [
    IntegratorKind::Wavefront,
    IntegratorKind::Megakernel,
    IntegratorKind::Bdpt,
];

/// What the keys change of the command line's settings.
#[derive(Clone, Copy)]
struct Switches {
    integrator: IntegratorKind,
    schedule: Schedule,
    lights: LightSelection,
    max_depth: u32,
}

/// Everything that lives on the device: dropped before the window, in field order.
struct Session {
    display: DisplayKernel,
    presenter: Presenter,
    renderer: Renderer,
    context: Context,
    window: Window,
}

impl Drop for Session {
    fn drop(&mut self) {
        // The last frame may still read the display kernel's pipeline and pixels.
        if let Err(error) = self.context.wait_for_all("the last frame") {
            log::error!("closing the viewer: {error}");
        }
    }
}

pub struct App<'a> {
    config: ViewConfig<'a>,
    session: Option<Session>,
    switches: Option<Switches>,
    controller: Option<CameraController>,
    camera_index: usize,
    samples: u32,
    last_pass: Option<PassReport>,
    samples_per_second: f64,
    help: bool,
    capture_next_pass: bool,
    /// The camera changed since the last frame.
    camera_changed: bool,
    mouse: (f64, f64),
    buttons: HashMap<MouseButton, bool>,
    modifiers: ModifiersState,
    fly_keys: HashMap<String, Vec3>,
    last_frame: Instant,
    last_title: Option<Instant>,
    message: Option<String>,
    error: Option<ViewerError>,
}

impl<'a> App<'a> {
    pub fn new(config: ViewConfig<'a>) -> Self {
        let capture_next_pass = config.capture_first_pass;
        Self {
            config,
            session: None,
            switches: None,
            controller: None,
            camera_index: 0,
            samples: 0,
            last_pass: None,
            samples_per_second: 0.0,
            help: false,
            capture_next_pass,
            camera_changed: false,
            mouse: (0.0, 0.0),
            buttons: HashMap::new(),
            modifiers: ModifiersState::empty(),
            fly_keys: HashMap::new(),
            last_frame: Instant::now(),
            last_title: None,
            message: None,
            error: None,
        }
    }

    /// The run's outcome once the window has closed: its first error, or the validation
    /// layer's errors where it was on.
    pub fn finish(mut self) -> Result<(), ViewerError> {
        let counts = self.session.as_ref().map(|s| s.context.message_counts());
        self.session = None;
        if let Some(error) = self.error.take() {
            return Err(error);
        }
        match counts {
            Some(counts) if counts.errors() > 0 => Err(ViewerError::Failed(format!(
                "the validation layer reported {} errors (see the log above)",
                counts.errors()
            ))),
            _ => Ok(()),
        }
    }

    fn fail(&mut self, event_loop: &ActiveEventLoop, error: impl ToString) {
        self.error = Some(ViewerError::Failed(error.to_string()));
        event_loop.exit();
    }

    /// The cameras the scene offers, as `RenderCamera`s for the render's shape.
    fn scene_cameras(&self, width: u32, height: u32) -> Vec<RenderCamera> {
        let scene = &self.config.scene;
        let aspect = width as f32 / height as f32;
        let mut cameras = vec![RenderCamera::for_scene(scene, width, height).0];
        cameras.extend(scene.more_cameras.iter().map(|c| RenderCamera::from_camera(c, aspect)));
        cameras
    }

    fn controller_for(&self, camera: RenderCamera) -> CameraController {
        let (lo, hi) = self
            .config
            .scene
            .bounds()
            .unwrap_or((Vec3::splat(-1.0), Vec3::splat(1.0)));
        CameraController::new(camera, (lo + hi) * 0.5, ((hi - lo) * 0.5).length())
    }

    /// The settings of the next renderer: the command line's for this scene, with the keys'.
    fn settings(&self, context: &Context) -> Result<RenderSettings, String> {
        let mut settings = (self.config.settings)(&self.config.scene, context)?;
        if let Some(switches) = self.switches {
            settings.integrator = switches.integrator;
            settings.schedule = switches.schedule;
            settings.light_selection = switches.lights;
            settings.max_depth = switches.max_depth;
            settings.light_culling.format = match switches.integrator {
                IntegratorKind::Bdpt => CullingFormat::Off,
                _ => self.config.culling_requested,
            };
        }
        Ok(settings)
    }

    fn open(&mut self, event_loop: &ActiveEventLoop) -> Result<(), String> {
        let window = event_loop
            .create_window(Window::default_attributes().with_title("wavetrace").with_visible(true))
            .map_err(|e| format!("cannot open a window: {e}"))?;
        let display = window.display_handle().map_err(|e| e.to_string())?.as_raw();
        let context = Context::new(&ContextDesc {
            presentation: Some(display),
            ..ContextDesc::default()
        })
        .map_err(|e| e.to_string())?;
        let settings = self.settings(&context)?;
        let size = (settings.width, settings.height);
        let _ = window.request_inner_size(PhysicalSize::new(size.0, size.1));
        let presenter = Presenter::new(
            &context,
            display,
            window.window_handle().map_err(|e| e.to_string())?.as_raw(),
        )
        .map_err(|e| e.to_string())?;
        let renderer = Renderer::new(&context, &self.config.scene, &settings).map_err(|e| e.to_string())?;
        self.switches = Some(Switches {
            integrator: settings.integrator,
            schedule: settings.schedule,
            lights: settings.light_selection,
            max_depth: settings.max_depth,
        });
        let camera = self.scene_cameras(size.0, size.1)[0];
        self.controller = Some(self.controller_for(camera));
        println!(
            "view: {} on {}, {}x{}, {} spp a pass (H: keys)",
            self.config.scene.source.display(),
            context.adapter().name,
            size.0,
            size.1,
            settings.spp
        );
        self.session = Some(Session {
            display: DisplayKernel::new(&context, size).map_err(|e| e.to_string())?,
            presenter,
            renderer,
            context,
            window,
        });
        self.announce_light_selection();
        Ok(())
    }

    /// A new renderer for the current scene and switches; the film starts empty. On failure
    /// the old one stays and the title says why.
    fn rebuild(&mut self, why: &str) {
        let Some(session) = self.session.as_mut() else { return };
        let context = session.context.clone();
        // The old renderer's film may still be read by the last frame.
        if let Err(error) = context.wait_for_all("the last frame") {
            self.error = Some(ViewerError::Failed(error.to_string()));
            return;
        }
        let made = self.settings(&context).and_then(|settings| {
            let renderer = Renderer::new(&context, &self.config.scene, &settings).map_err(|e| e.to_string())?;
            Ok((renderer, settings))
        });
        match made {
            Ok((renderer, settings)) => {
                let session = self.session.as_mut().expect("checked above");
                session.renderer = renderer;
                let size = (settings.width, settings.height);
                if session.display.size() != size {
                    match DisplayKernel::new(&context, size) {
                        Ok(display) => session.display = display,
                        Err(e) => self.message = Some(e.to_string()),
                    }
                }
                self.message = None;
                self.restart(why);
                if let Some(controller) = &self.controller {
                    if controller.moved() {
                        self.camera_moved();
                    }
                }
            }
            Err(error) => {
                eprintln!("view: {why}: {error}");
                self.message = Some(format!("{why}: {error}"));
            }
        }
    }

    /// The film starts again (after a change of what it shows).
    fn restart(&mut self, why: &str) {
        if let Some(session) = &self.session {
            if let Err(error) = session.renderer.clear_film() {
                self.error = Some(ViewerError::Failed(error.to_string()));
            }
        }
        if self.samples > 0 {
            println!("view: restart at {} spp: {why}", self.samples);
        }
        self.samples = 0;
        self.last_title = None;
    }

    /// Notes a camera change; the next frame applies it once, however many mouse events
    /// came before it.
    fn camera_moved(&mut self) {
        self.camera_changed = true;
    }

    /// The camera changes since the last frame, to the renderer, and the film restarted.
    fn apply_camera(&mut self) {
        if !std::mem::take(&mut self.camera_changed) {
            return;
        }
        let (Some(session), Some(controller)) = (self.session.as_mut(), &self.controller) else {
            return;
        };
        if let Err(error) = session.renderer.set_camera(&controller.camera()) {
            self.message = Some(error.to_string());
        }
        self.restart("the camera moved");
    }

    fn target_samples(&self) -> u32 {
        self.config.target_spp.unwrap_or(Renderer::MAX_SAMPLES)
    }

    /// Whether another pass fits below the samples the viewer stops at.
    fn pass_left(&self) -> bool {
        let spp = self.session.as_ref().map_or(1, |s| s.renderer.settings().spp);
        self.samples + spp <= self.target_samples()
    }

    /// One frame: passes while the budget lasts and samples remain, then the picture.
    fn frame(&mut self) -> Result<(), String> {
        let now = Instant::now();
        let seconds = now.duration_since(self.last_frame).as_secs_f32().min(0.25);
        self.last_frame = now;
        let direction: Vec3 = self.fly_keys.values().copied().sum();
        if direction != Vec3::ZERO {
            if let Some(controller) = &mut self.controller {
                controller.fly(direction, seconds);
            }
            self.camera_moved();
        }
        self.apply_camera();
        let target = self.target_samples();
        let session = self.session.as_mut().ok_or("no window")?;
        let spp = session.renderer.settings().spp;
        let started = Instant::now();
        let mut added = 0u32;
        while (added == 0 || started.elapsed() < FRAME_BUDGET) && self.samples + spp <= target {
            let capture = self.capture_next_pass && self.config.renderdoc.is_some();
            if let (true, Some(renderdoc)) = (capture, &self.config.renderdoc) {
                renderdoc.start(&session.context);
            }
            let report = session.renderer.render_pass(self.samples).map_err(|e| e.to_string())?;
            if let (true, Some(renderdoc)) = (capture, &self.config.renderdoc) {
                let path = renderdoc.end(&session.context).map_err(|e| e.to_string())?;
                println!(
                    "view: captured the pass of samples {}..{}: {}",
                    self.samples,
                    self.samples + spp,
                    path.display()
                );
                self.capture_next_pass = false;
            }
            self.samples += spp;
            added += spp;
            self.last_pass = Some(report);
        }
        if added > 0 {
            let (w, h) = session.display.size();
            let seconds = started.elapsed().as_secs_f64().max(1e-9);
            self.samples_per_second = f64::from(added) * f64::from(w) * f64::from(h) / seconds;
            if !self.pass_left() {
                println!("view: done: {} spp", self.samples);
            }
        }
        self.show()
    }

    /// The display kernel and the present, with the overlay when help is on.
    fn show(&mut self) -> Result<(), String> {
        let overlay = self.help.then(|| self.overlay_lines());
        let session = self.session.as_mut().ok_or("no window")?;
        let (w, h) = session.display.size();
        let overlay = overlay.map(|lines| Overlay::draw(&lines, (w / 480).max(1), w, h));
        session
            .display
            .set_overlay(&session.context, overlay)
            .map_err(|e| e.to_string())?;
        let window_size = session.window.inner_size();
        let (display, film) = (&session.display, session.renderer.film());
        let samples = self.samples;
        let settings = &self.config.display;
        session
            .presenter
            .present(
                &session.context,
                (window_size.width, window_size.height),
                display.pixels(),
                display.size(),
                |commands| {
                    display.record(commands, film, samples, settings);
                    Ok(())
                },
            )
            .map_err(|e| e.to_string())?;
        self.update_title();
        Ok(())
    }

    fn status(&self) -> String {
        let Some(switches) = self.switches else {
            return String::new();
        };
        let done = if self.pass_left() { "" } else { " (done)" };
        format!(
            "{} spp{done} | {:.1} Msamples/s | {:?} {} {} d{} | {} {:+.1} EV",
            self.samples,
            self.samples_per_second / 1e6,
            switches.integrator,
            switches.schedule.name(),
            self.lights_shown(switches.lights),
            switches.max_depth,
            self.config.display.tone_map.name(),
            self.config.display.exposure,
        )
    }

    /// The light selection asked for, and the one the renderer resolved it to where they differ
    /// (`LightSelection::for_scene`: a BVH of lights all alike chooses uniformly).
    fn lights_shown(&self, asked: LightSelection) -> String {
        match &self.session {
            Some(session) if session.renderer.light_selection() != asked => {
                format!("{} (as {})", asked.name(), session.renderer.light_selection().name())
            }
            _ => asked.name().to_string(),
        }
    }

    /// Says on the terminal when the renderer resolved the asked light selection to another.
    fn announce_light_selection(&self) {
        if let (Some(session), Some(switches)) = (&self.session, self.switches) {
            let used = session.renderer.light_selection();
            if used != switches.lights {
                println!(
                    "view: {} lights choose as {} here: every light of the scene is alike",
                    switches.lights.name(),
                    used.name()
                );
            }
        }
    }

    fn kernel_times(&self) -> Vec<String> {
        let Some(report) = &self.last_pass else {
            return Vec::new();
        };
        let mut kernels: Vec<_> = report.kernels.iter().filter(|k| k.milliseconds > 0.0).collect();
        kernels.sort_by(|a, b| b.milliseconds.total_cmp(&a.milliseconds));
        kernels
            .iter()
            .map(|k| format!("{} {:.2} ms", k.name, k.milliseconds))
            .collect()
    }

    fn overlay_lines(&self) -> Vec<String> {
        let mut lines = vec![self.status()];
        if let Some(session) = &self.session {
            lines.push(format!("DEVICE: {}", session.context.adapter().name));
        }
        if let Some(report) = &self.last_pass {
            lines.push(format!("LAST PASS: {:.2} MS GPU", report.gpu_seconds * 1e3));
        }
        lines.extend(self.kernel_times().into_iter().take(8).map(|k| format!("  {k}")));
        lines.push(String::new());
        lines.extend(controls::help_lines());
        if let Some(message) = &self.message {
            lines.push(message.clone());
        }
        lines
    }

    fn update_title(&mut self) {
        if self.last_title.is_some_and(|t| t.elapsed() < TITLE_EVERY) {
            return;
        }
        self.last_title = Some(Instant::now());
        let Some(session) = &self.session else { return };
        let scene = self
            .config
            .scene
            .source
            .file_name()
            .map_or("".into(), |n| n.to_string_lossy());
        let kernels: Vec<String> = self.kernel_times().into_iter().take(3).collect();
        let mut title = format!(
            "wavetrace | {scene} | {} | {} | {}",
            self.status(),
            kernels.join(", "),
            session.context.adapter().name
        );
        if let Some(message) = &self.message {
            title = format!("{title} | {message}");
        }
        session.window.set_title(&title);
    }
}

impl ApplicationHandler for App<'_> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.session.is_some() {
            return;
        }
        if let Err(error) = self.open(event_loop) {
            self.fail(event_loop, error);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            WindowEvent::CloseRequested => event_loop.exit(),
            WindowEvent::Resized(_) => {
                if let Some(session) = &mut self.session {
                    session.presenter.resize();
                    session.window.request_redraw();
                }
            }
            WindowEvent::RedrawRequested => {
                if let Err(error) = self.frame() {
                    self.fail(event_loop, error);
                }
            }
            WindowEvent::DroppedFile(path) => self.drop_file(&path),
            WindowEvent::ModifiersChanged(modifiers) => self.modifiers = modifiers.state(),
            WindowEvent::KeyboardInput { event, .. } => {
                let key: &Key = &event.logical_key;
                let name = format!("{:?}", event.physical_key);
                if let Some(direction) = controls::fly_direction(key) {
                    match event.state {
                        ElementState::Pressed => self.fly_keys.insert(name, direction),
                        ElementState::Released => self.fly_keys.remove(&name),
                    };
                } else if event.state == ElementState::Pressed && !event.repeat {
                    if let Some(action) = controls::action(key) {
                        self.act(event_loop, action);
                    }
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                self.buttons.insert(button, state == ElementState::Pressed);
            }
            WindowEvent::CursorMoved { position, .. } => self.mouse_moved(position.x, position.y),
            WindowEvent::MouseWheel { delta, .. } => self.wheel(match delta {
                MouseScrollDelta::LineDelta(_, y) => y,
                MouseScrollDelta::PixelDelta(p) => (p.y / 40.0) as f32,
            }),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        let Some(session) = &self.session else { return };
        // Frames keep coming while samples remain or the camera flies; after that the loop
        // sleeps until an event, and redraws twice a second so the window stays current.
        let busy = self.pass_left() || !self.fly_keys.is_empty() || self.camera_changed;
        if busy {
            event_loop.set_control_flow(ControlFlow::Poll);
            session.window.request_redraw();
        } else {
            event_loop.set_control_flow(ControlFlow::WaitUntil(Instant::now() + Duration::from_millis(500)));
            if self.last_frame.elapsed() >= Duration::from_millis(500) {
                session.window.request_redraw();
            }
        }
    }
}
