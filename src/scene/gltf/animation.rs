//! The node transforms of the file's animations at one time (`render --frames`): each
//! channel's sampler evaluated as glTF 2.0 defines STEP, LINEAR (spherical for rotations) and
//! CUBICSPLINE (Hermite, tangents scaled by the key interval), clamped to its first and last
//! key. Every animation plays at once, later channels overriding earlier ones on the same
//! node and property, morph target weights included.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};
use gltf::animation::{Interpolation, Property};

use super::accessor::read_floats;

/// A node's translation, rotation and scale, as far as animations set them.
#[derive(Clone, Debug, Default)]
pub(super) struct Pose {
    translation: Option<Vec3>,
    rotation: Option<Quat>,
    scale: Option<Vec3>,
    /// The weights of the node's morph targets, one a target.
    pub weights: Option<Vec<f32>>,
}

impl Pose {
    /// The node's local transform: the animated parts, the rest from the node's own.
    pub(super) fn local(&self, node: &gltf::Node) -> Mat4 {
        let (t, r, s) = node.transform().decomposed();
        Mat4::from_scale_rotation_translation(
            self.scale.unwrap_or(Vec3::from(s)),
            self.rotation.unwrap_or(Quat::from_array(r)),
            self.translation.unwrap_or(Vec3::from(t)),
        )
    }
}

/// The animations at one time, and what they could not move.
#[derive(Default)]
pub(super) struct Posed {
    /// The poses of the nodes the animations move, by node index.
    pub poses: HashMap<usize, Pose>,
    /// Channels whose keys or values are not stored (valid glTF: an accessor without a buffer
    /// view holds zeros, which no sampler can play), each said in a sentence.
    pub channels_without_data: Vec<String>,
}

/// The poses of the nodes the animations move at `time` seconds.
pub(super) fn poses_at(document: &gltf::Document, buffers: &[Option<Vec<u8>>], time: f32) -> Result<Posed, String> {
    let mut posed = Posed::default();
    let poses = &mut posed.poses;
    for animation in document.animations() {
        let name = animation.name().map_or_else(
            || format!("animation {}", animation.index()),
            |n| format!("animation {n}"),
        );
        for channel in animation.channels() {
            let target = channel.target();
            let sampler = channel.sampler();
            let unstored = [("key times", sampler.input()), ("values", sampler.output())]
                .into_iter()
                .find(|(_, accessor)| accessor.view().is_none() && accessor.sparse().is_none());
            if let Some((what, accessor)) = unstored {
                posed.channels_without_data.push(format!(
                    "{name}: channel {}: its {what} (accessor {}) have no buffer view, so no data: not animated",
                    channel.index(),
                    accessor.index()
                ));
                continue;
            }
            let times: Vec<f32> = read_floats::<1>(&sampler.input(), buffers)
                .map_err(|e| format!("{name}: {e}"))?
                .into_iter()
                .map(|[t]| t)
                .collect();
            check_times(&times).map_err(|e| format!("{name}: sampler {}: {e}", sampler.index()))?;
            let interpolation = sampler.interpolation();
            let pose = poses.entry(target.node().index()).or_default();
            let key = Key::at(&times, time);
            let output = sampler.output();
            match target.property() {
                Property::Translation | Property::Scale => {
                    let values = values::<3>(&output, buffers, times.len(), interpolation, &name)?;
                    let value = Vec3::from(key.sample(&values, interpolation, false));
                    if target.property() == Property::Translation {
                        pose.translation = Some(value);
                    } else {
                        pose.scale = Some(value);
                    }
                }
                Property::Rotation => {
                    let values = values::<4>(&output, buffers, times.len(), interpolation, &name)?;
                    let q = Quat::from_array(key.sample(&values, interpolation, true)).normalize();
                    if !q.is_finite() {
                        return Err(format!("{name}: a rotation key is not a rotation (zero or not finite)"));
                    }
                    pose.rotation = Some(q);
                }
                Property::MorphTargetWeights => {
                    pose.weights = Some(weights_at(&key, &output, buffers, times.len(), interpolation, &name)?);
                }
            }
        }
    }
    Ok(posed)
}

fn check_times(times: &[f32]) -> Result<(), String> {
    if times.is_empty() {
        return Err("no keys".into());
    }
    if times.iter().any(|t| !t.is_finite()) || times.windows(2).any(|w| w[1] <= w[0]) {
        return Err("key times must be finite and strictly increasing".into());
    }
    Ok(())
}

/// Output elements a key: one, or three (in-tangent, value, out-tangent) for CUBICSPLINE.
fn elements_per_key(interpolation: Interpolation) -> usize {
    match interpolation {
        Interpolation::CubicSpline => 3,
        _ => 1,
    }
}

fn check_finite<'a>(
    mut values: impl Iterator<Item = &'a f32>,
    output: &gltf::Accessor,
    name: &str,
) -> Result<(), String> {
    match values.all(|v| v.is_finite()) {
        true => Ok(()),
        false => Err(format!(
            "{name}: accessor {} has values that are not finite",
            output.index()
        )),
    }
}

/// A sampler's output values, `elements_per_key` a key.
fn values<const N: usize>(
    output: &gltf::Accessor,
    buffers: &[Option<Vec<u8>>],
    keys: usize,
    interpolation: Interpolation,
    name: &str,
) -> Result<Vec<[f32; N]>, String> {
    let values = read_floats::<N>(output, buffers).map_err(|e| format!("{name}: {e}"))?;
    let expected = keys * elements_per_key(interpolation);
    if values.len() != expected {
        return Err(format!(
            "{name}: accessor {} has {} values for {keys} keys of {interpolation:?}, not {expected}",
            output.index(),
            values.len(),
        ));
    }
    check_finite(values.iter().flatten(), output, name)?;
    Ok(values)
}

/// A weights channel at `key`: its output holds, for each of its elements (`elements_per_key`
/// a key), one weight per morph target, so the target count is what the keys leave over.
fn weights_at(
    key: &Key,
    output: &gltf::Accessor,
    buffers: &[Option<Vec<u8>>],
    keys: usize,
    interpolation: Interpolation,
    name: &str,
) -> Result<Vec<f32>, String> {
    let flat: Vec<f32> = read_floats::<1>(output, buffers)
        .map_err(|e| format!("{name}: {e}"))?
        .into_iter()
        .map(|[w]| w)
        .collect();
    let elements = keys * elements_per_key(interpolation);
    if flat.is_empty() || flat.len() % elements != 0 {
        return Err(format!(
            "{name}: accessor {} has {} morph weights, not a whole number for each of {keys} keys of {interpolation:?}",
            output.index(),
            flat.len(),
        ));
    }
    check_finite(flat.iter(), output, name)?;
    let targets = flat.len() / elements;
    Ok((0..targets)
        .map(|target| {
            let column: Vec<[f32; 1]> = (0..elements).map(|e| [flat[e * targets + target]]).collect();
            key.sample(&column, interpolation, false)[0]
        })
        .collect())
}

/// Where a time falls among the keys: key `index`, `u` of the way to the next, whose time is
/// `interval` later.
struct Key {
    index: usize,
    u: f32,
    interval: f32,
}

impl Key {
    fn at(times: &[f32], time: f32) -> Self {
        let last = times.len() - 1;
        if time <= times[0] || last == 0 {
            return Self {
                index: 0,
                u: 0.0,
                interval: 0.0,
            };
        }
        if time >= times[last] {
            return Self {
                index: last,
                u: 0.0,
                interval: 0.0,
            };
        }
        let index = times.partition_point(|&t| t <= time) - 1;
        let interval = times[index + 1] - times[index];
        Self {
            index,
            u: (time - times[index]) / interval,
            interval,
        }
    }

    fn sample<const N: usize>(&self, values: &[[f32; N]], interpolation: Interpolation, rotation: bool) -> [f32; N] {
        let (k, u) = (self.index, self.u);
        match interpolation {
            _ if u == 0.0 => match interpolation {
                Interpolation::CubicSpline => values[3 * k + 1],
                _ => values[k],
            },
            Interpolation::Step => values[k],
            Interpolation::Linear if rotation => {
                let [a, b] = [values[k], values[k + 1]].map(|v| Quat::from_slice(&v[..4]).normalize());
                let q = a.slerp(b, u).to_array();
                std::array::from_fn(|i| q[i])
            }
            Interpolation::Linear => std::array::from_fn(|i| values[k][i] + (values[k + 1][i] - values[k][i]) * u),
            Interpolation::CubicSpline => {
                let (u2, u3) = (u * u, u * u * u);
                let (v0, b0) = (values[3 * k + 1], values[3 * k + 2]);
                let (a1, v1) = (values[3 * (k + 1)], values[3 * (k + 1) + 1]);
                let d = self.interval;
                std::array::from_fn(|i| {
                    (2.0 * u3 - 3.0 * u2 + 1.0) * v0[i]
                        + (u3 - 2.0 * u2 + u) * d * b0[i]
                        + (-2.0 * u3 + 3.0 * u2) * v1[i]
                        + (u3 - u2) * d * a1[i]
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_clamp_and_interpolate() {
        let times = [1.0, 2.0, 4.0];
        let values = [[0.0, 0.0, 0.0], [2.0, 4.0, 6.0], [4.0, 4.0, 4.0]];
        let at = |t: f32, i| Key::at(&times, t).sample(&values, i, false);
        assert_eq!(at(0.0, Interpolation::Linear), [0.0; 3]);
        assert_eq!(at(9.0, Interpolation::Linear), [4.0; 3]);
        assert_eq!(at(1.5, Interpolation::Linear), [1.0, 2.0, 3.0]);
        assert_eq!(at(3.0, Interpolation::Linear), [3.0, 4.0, 5.0]);
        assert_eq!(at(3.9, Interpolation::Step), [2.0, 4.0, 6.0]);
        assert_eq!(at(2.0, Interpolation::Step), [2.0, 4.0, 6.0]);
    }

    #[test]
    fn rotations_slerp_and_cubic_splines_meet_their_keys() {
        let times = [0.0, 1.0];
        let quarter = Quat::from_rotation_y(std::f32::consts::FRAC_PI_2).to_array();
        let rotations = [Quat::IDENTITY.to_array(), quarter];
        let half = Quat::from_array(Key::at(&times, 0.5).sample(&rotations, Interpolation::Linear, true));
        assert!(half.angle_between(Quat::from_rotation_y(std::f32::consts::FRAC_PI_4)) < 1e-5);
        // (in-tangent, value, out-tangent) per key; zero tangents give smoothstep.
        let cubic = [[9.0], [0.0], [0.0], [0.0], [1.0], [9.0]];
        let at = |t| Key::at(&times, t).sample(&cubic, Interpolation::CubicSpline, false)[0];
        assert_eq!((at(0.0), at(1.0)), (0.0, 1.0));
        assert!((at(0.25) - 0.15625).abs() < 1e-6);
    }
}
