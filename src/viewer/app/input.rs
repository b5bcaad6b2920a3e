//! What the viewer's mouse, keys and dropped files do: camera moves, switches, shots,
//! captures and new scenes.

use winit::event::MouseButton;
use winit::event_loop::ActiveEventLoop;

use crate::integrator::Schedule;
use crate::lights::LightSelection;
use crate::scene::Scene;

use super::super::controls::Action;
use super::super::shots;
use super::{App, Switches, INTEGRATORS};

impl App<'_> {
    pub(super) fn act(&mut self, event_loop: &ActiveEventLoop, action: Action) {
        let Some(mut switches) = self.switches else { return };
        match action {
            Action::Help => self.help = !self.help,
            Action::ResetCamera | Action::NextCamera => {
                let Some(session) = &self.session else { return };
                let (w, h) = session.display.size();
                let cameras = self.scene_cameras(w, h);
                self.camera_index = match action {
                    Action::NextCamera => (self.camera_index + 1) % cameras.len(),
                    _ => self.camera_index,
                };
                self.controller = Some(self.controller_for(cameras[self.camera_index]));
                self.camera_moved();
            }
            Action::NextIntegrator | Action::NextSchedule | Action::NextLightSelection => {
                match action {
                    Action::NextIntegrator => {
                        let index = INTEGRATORS.iter().position(|&i| i == switches.integrator).unwrap_or(0);
                        switches.integrator = INTEGRATORS[(index + 1) % INTEGRATORS.len()];
                    }
                    Action::NextSchedule => {
                        switches.schedule = match switches.schedule {
                            Schedule::Gpu => Schedule::Cycles,
                            Schedule::Cycles => Schedule::Gpu,
                        }
                    }
                    _ => {
                        let all = LightSelection::ALL;
                        let index = all.iter().position(|&l| l == switches.lights).unwrap_or(0);
                        switches.lights = all[(index + 1) % all.len()];
                    }
                }
                self.switch(switches);
            }
            Action::DeeperPaths | Action::ShallowerPaths => {
                switches.max_depth = match action {
                    Action::DeeperPaths => (switches.max_depth + 1).min(255),
                    _ => (switches.max_depth - 1).max(1),
                };
                self.switch(switches);
            }
            Action::NextToneMap => self.config.display.tone_map = self.config.display.tone_map.next(),
            Action::Brighter => self.config.display.exposure += 0.5,
            Action::Darker => self.config.display.exposure -= 0.5,
            Action::Save => self.save(),
            Action::Capture => match &self.config.renderdoc {
                Some(_) => self.capture_next_pass = true,
                None => {
                    let text =
                        "F12: wavetrace is not running under RenderDoc (renderdoccmd capture wavetrace view ...)";
                    eprintln!("view: {text}");
                    self.message = Some(text.into());
                }
            },
            Action::Quit => event_loop.exit(),
        }
        self.last_title = None;
    }

    pub(super) fn switch(&mut self, switches: Switches) {
        let old = self.switches;
        self.switches = Some(switches);
        let what = format!(
            "{:?}, {} schedule, {} lights, depth {}",
            switches.integrator,
            switches.schedule.name(),
            switches.lights.name(),
            switches.max_depth
        );
        println!("view: switch to {what}");
        self.rebuild(&format!("switched to {what}"));
        if self.message.is_some() {
            self.switches = old;
        } else {
            self.announce_light_selection();
        }
    }

    pub(super) fn save(&mut self) {
        let Some(session) = &self.session else { return };
        if self.samples == 0 {
            return;
        }
        let written = session
            .renderer
            .film()
            .read_mean(&session.context, self.samples)
            .map_err(|e| e.to_string())
            .and_then(|image| {
                shots::write_shot(
                    &self.config.shots,
                    &self.config.scene.source,
                    &image,
                    self.samples,
                    &self.config.display,
                )
            });
        match written {
            Ok([exr, png]) => println!("view: wrote {} and {}", exr.display(), png.display()),
            Err(error) => {
                eprintln!("view: cannot save: {error}");
                self.message = Some(format!("cannot save: {error}"));
            }
        }
    }

    pub(super) fn drop_file(&mut self, path: &std::path::Path) {
        match Scene::load_with(path, &self.config.load_options) {
            Ok(scene) => {
                for warning in &scene.warnings {
                    eprintln!("wavetrace: warning: {}: {warning}", path.display());
                }
                let old = std::mem::replace(&mut self.config.scene, scene);
                self.rebuild(&format!("opened {}", path.display()));
                if self.message.is_some() {
                    self.config.scene = old;
                    return;
                }
                self.announce_light_selection();
                let Some(session) = &self.session else { return };
                let (w, h) = session.display.size();
                self.camera_index = 0;
                self.controller = Some(self.controller_for(self.scene_cameras(w, h)[0]));
                self.camera_moved();
            }
            Err(error) => {
                eprintln!("view: {error}");
                self.message = Some(error.to_string());
            }
        }
    }

    pub(super) fn mouse_moved(&mut self, x: f64, y: f64) {
        let (dx, dy) = ((x - self.mouse.0) as f32, (y - self.mouse.1) as f32);
        self.mouse = (x, y);
        let held = |button| self.buttons.get(&button).copied().unwrap_or(false);
        let Some(session) = &self.session else { return };
        let height = session.window.inner_size().height;
        let Some(controller) = self.controller.as_mut() else {
            return;
        };
        if held(MouseButton::Middle) || (held(MouseButton::Left) && self.modifiers.shift_key()) {
            controller.pan(dx, dy, height);
        } else if held(MouseButton::Left) {
            controller.orbit(dx, dy);
        } else if held(MouseButton::Right) {
            controller.look(dx, dy);
        } else {
            return;
        }
        self.camera_moved();
    }

    pub(super) fn wheel(&mut self, steps: f32) {
        let flying = !self.fly_keys.is_empty() || self.buttons.get(&MouseButton::Right).copied().unwrap_or(false);
        let Some(controller) = self.controller.as_mut() else {
            return;
        };
        if flying {
            controller.change_speed(steps);
        } else {
            controller.zoom(steps);
            self.camera_moved();
        }
    }
}
