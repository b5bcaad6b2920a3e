//! The viewer's keys: one table gives each key its action and the help line H shows, so that
//! the help cannot drift from what the keys do.

use winit::keyboard::{Key, NamedKey};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Help,
    ResetCamera,
    NextCamera,
    NextIntegrator,
    NextSchedule,
    NextLightSelection,
    DeeperPaths,
    ShallowerPaths,
    NextToneMap,
    Brighter,
    Darker,
    Save,
    Capture,
    Quit,
}

/// (key as the help names it, action, what the help says). Mouse and fly controls are not
/// keys with actions, so their lines are in `MOUSE_HELP`.
const KEYS: [(&str, Action, &str); 17] = [
    ("H", Action::Help, "show or hide this help"),
    ("R", Action::ResetCamera, "back to the scene's camera"),
    ("C", Action::NextCamera, "next camera of the scene"),
    ("I", Action::NextIntegrator, "integrator: wavefront, megakernel, bdpt"),
    ("G", Action::NextSchedule, "wavefront schedule: gpu, cycles"),
    (
        "L",
        Action::NextLightSelection,
        "light selection: bvh, cpu-bvh, tree, cdf, cpu-cdf, uniform",
    ),
    ("]", Action::DeeperPaths, "max depth + 1"),
    ("[", Action::ShallowerPaths, "max depth - 1"),
    ("T", Action::NextToneMap, "tone map: clamp, reinhard, aces"),
    ("+", Action::Brighter, "exposure + 0.5 stop"),
    ("=", Action::Brighter, ""),
    ("-", Action::Darker, "exposure - 0.5 stop"),
    ("F5", Action::Save, "write EXR and PNG (timestamped)"),
    ("P", Action::Save, "the same"),
    ("F12", Action::Capture, "RenderDoc capture of the next sample pass"),
    ("ESC", Action::Quit, "quit"),
    ("Q", Action::Quit, ""),
];

const MOUSE_HELP: [&str; 5] = [
    "LEFT DRAG: ORBIT        MIDDLE DRAG OR SHIFT+LEFT DRAG: PAN",
    "WHEEL: ZOOM (FLY SPEED WHILE FLYING)",
    "RIGHT DRAG: LOOK        W A S D: FLY, E/SPACE UP, Z/CTRL DOWN",
    "DROP A .GLTF OR .GLB ON THE WINDOW TO OPEN IT",
    "",
];

/// The action of a pressed key, if any.
pub fn action(key: &Key) -> Option<Action> {
    let name = match key {
        Key::Named(NamedKey::F5) => "F5",
        Key::Named(NamedKey::F12) => "F12",
        Key::Named(NamedKey::Escape) => "ESC",
        Key::Character(text) => text.as_str(),
        _ => return None,
    };
    let name = name.to_ascii_uppercase();
    KEYS.iter()
        .find(|(key, _, _)| *key == name)
        .map(|&(_, action, _)| action)
}

/// The fly direction a held key adds: (right, up, forward).
pub fn fly_direction(key: &Key) -> Option<glam::Vec3> {
    match key {
        Key::Character(text) => match text.to_ascii_lowercase().as_str() {
            "w" => Some(glam::Vec3::Z),
            "s" => Some(-glam::Vec3::Z),
            "d" => Some(glam::Vec3::X),
            "a" => Some(-glam::Vec3::X),
            "e" => Some(glam::Vec3::Y),
            "z" => Some(-glam::Vec3::Y),
            _ => None,
        },
        Key::Named(NamedKey::Space) => Some(glam::Vec3::Y),
        Key::Named(NamedKey::Control) => Some(-glam::Vec3::Y),
        _ => None,
    }
}

/// The help overlay's lines.
pub fn help_lines() -> Vec<String> {
    let mut lines: Vec<String> = MOUSE_HELP.iter().map(|l| l.to_string()).collect();
    for (key, _, help) in KEYS {
        if !help.is_empty() {
            lines.push(format!("{key:<5} {}", help.to_uppercase()));
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_a_key_with_help() {
        let all = [
            Action::Help,
            Action::ResetCamera,
            Action::NextCamera,
            Action::NextIntegrator,
            Action::NextSchedule,
            Action::NextLightSelection,
            Action::DeeperPaths,
            Action::ShallowerPaths,
            Action::NextToneMap,
            Action::Brighter,
            Action::Darker,
            Action::Save,
            Action::Capture,
            Action::Quit,
        ];
        for wanted in all {
            assert!(
                KEYS.iter()
                    .any(|&(_, action, help)| action == wanted && !help.is_empty()),
                "{wanted:?} has no documented key"
            );
        }
        assert_eq!(action(&Key::Character("i".into())), Some(Action::NextIntegrator));
        assert_eq!(action(&Key::Named(NamedKey::F5)), Some(Action::Save));
        assert_eq!(action(&Key::Character("w".into())), None, "w flies");
        assert!(help_lines().iter().any(|l| l.starts_with("F12")));
    }
}
