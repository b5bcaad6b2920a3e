//! The MIS weights of bidirectional path tracing: on random paths (lengths 1 to 10, random
//! distances, cosines and densities, delta vertices, hittable and punctual lights), the weights
//! of all strategies that can make a path sum to 1, and the incremental form each subpath
//! carries (two scalars a vertex) gives the same weight as the reference that stores the
//! whole path.

use crate::common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline};
use wavetrace::integrator::bdpt::mis::{
    camera_connection_weight, connection_weight, light_hit_weight, ConnectionEnd, MisVertex, PathDensities, SubpathMis,
};
use wavetrace::interface::{BdptMisProbePush, BDPT_PROBE_MAX_VERTICES, BDPT_PROBE_PATH_FLOATS};

/// A path as the integrator would trace it: per segment i (x_i to x_{i+1}) its length, and per
/// vertex the cosines towards its neighbours and the solid-angle densities of scattering
/// towards them.
struct RandomPath {
    /// Light choice times the point's area density.
    position_pdf: f64,
    hittable: bool,
    /// Solid-angle density of the camera ray, and light subpaths per camera subpaths' image.
    camera_pdf: f64,
    light_paths: f64,
    /// distance[i]: |x_{i+1} - x_i|.
    distance: Vec<f64>,
    /// At x_i: cosine towards x_{i+1} (`cos_next`) and towards x_{i-1} (`cos_previous`).
    cos_next: Vec<f64>,
    cos_previous: Vec<f64>,
    /// At x_i: density of scattering towards x_{i+1} when arriving from x_{i-1} (for x_0 the
    /// emission's direction density), and towards x_{i-1} when arriving from x_{i+1}.
    toward_camera: Vec<f64>,
    toward_light: Vec<f64>,
    delta: Vec<bool>,
}

/// How wide the random quantities range: `Wide` stresses the arithmetic in f64; `Scene` stays
/// where float32 keeps its precision through ten vertices, as in a scene of metres.
#[derive(Clone, Copy)]
enum Ranges {
    Wide,
    Scene,
}

impl RandomPath {
    fn new(rng: &mut SmallRng, length: usize, ranges: Ranges) -> Self {
        let vertices = length + 1;
        let mut positive = |low: f64, high: f64| 10f64.powf(rng.random_range(low.log10()..high.log10()));
        let (distances, cosines, densities, light_paths) = match ranges {
            Ranges::Wide => ((0.01, 10.0), (0.01, 1.0), (0.05, 20.0), 1e6),
            Ranges::Scene => ((0.1, 5.0), (0.1, 1.0), (0.1, 5.0), 1e4),
        };
        let mut path = Self {
            position_pdf: positive(0.01, 100.0),
            hittable: false,
            camera_pdf: positive(0.5, 50.0),
            light_paths: positive(1.0, light_paths),
            distance: (0..length).map(|_| positive(distances.0, distances.1)).collect(),
            cos_next: (0..vertices).map(|_| positive(cosines.0, cosines.1)).collect(),
            cos_previous: (0..vertices).map(|_| positive(cosines.0, cosines.1)).collect(),
            toward_camera: (0..vertices).map(|_| positive(densities.0, densities.1)).collect(),
            toward_light: (0..vertices).map(|_| positive(densities.0, densities.1)).collect(),
            delta: vec![false; vertices],
        };
        path.hittable = rng.random_bool(0.7);
        // A light at infinity: chosen by direction, its first segment has no squared distance
        // and no cosine at the light (SubpathMis::leave_light).
        if rng.random_bool(0.2) {
            path.distance[0] = 1.0;
            path.cos_next[0] = 1.0;
        }
        for i in 1..length {
            if rng.random_bool(0.25) {
                // A delta lobe's densities are its discrete probabilities, which cancel.
                path.delta[i] = true;
                path.toward_camera[i] = 1.0;
                path.toward_light[i] = 1.0;
            }
        }
        // The camera's "scattering towards the light" is its ray, over the light paths.
        path.toward_light[length] = path.camera_pdf / path.light_paths;
        path
    }

    fn length(&self) -> usize {
        self.distance.len()
    }

    /// The probe's layout (diagnostics/bdpt_mis_probe.comp): a header, then six arrays.
    fn probe_floats(&self) -> Vec<f32> {
        let max = BDPT_PROBE_MAX_VERTICES as usize;
        let mut floats = vec![0.0f32; BDPT_PROBE_PATH_FLOATS as usize];
        let header = [
            self.length() as f64,
            self.position_pdf,
            f64::from(u8::from(self.hittable)),
            self.camera_pdf,
            self.light_paths,
        ];
        for (slot, value) in floats.iter_mut().zip(header) {
            *slot = value as f32;
        }
        let delta: Vec<f64> = self.delta.iter().map(|&d| f64::from(u8::from(d))).collect();
        let arrays = [
            &self.distance,
            &self.cos_next,
            &self.cos_previous,
            &self.toward_camera,
            &self.toward_light,
            &delta,
        ];
        for (a, values) in arrays.into_iter().enumerate() {
            for (i, &value) in values.iter().enumerate() {
                floats[5 + a * max + i] = value as f32;
            }
        }
        floats
    }

    /// Area density at x_{i+1} of the light subpath's step from x_i.
    fn area_from_light(&self, i: usize) -> f64 {
        self.toward_camera[i] * self.cos_previous[i + 1] / self.distance[i].powi(2)
    }

    /// Area density at x_{i-1} of the camera subpath's step from x_i.
    fn area_from_camera(&self, i: usize) -> f64 {
        self.toward_light[i] * self.cos_next[i - 1] / self.distance[i - 1].powi(2)
    }

    fn densities(&self) -> PathDensities {
        let k = self.length();
        let vertices = (0..=k)
            .map(|i| MisVertex {
                from_light: if i == 0 {
                    self.position_pdf
                } else {
                    self.area_from_light(i - 1)
                },
                from_camera: if i == k { 1.0 } else { self.area_from_camera(i + 1) },
                delta: self.delta[i],
            })
            .collect();
        PathDensities {
            vertices,
            light_hittable: self.hittable,
        }
    }

    /// The light subpath's MIS state at x_end (end >= 1).
    fn light_state(&self, end: usize) -> SubpathMis {
        let mut state = SubpathMis::leave_light(
            self.position_pdf,
            self.toward_camera[0],
            self.cos_next[0],
            self.hittable,
        );
        state.arrive(self.distance[0], self.cos_previous[1]);
        for i in 1..end {
            state.scatter(
                self.toward_camera[i],
                self.toward_light[i],
                self.cos_next[i],
                self.delta[i],
            );
            state.arrive(self.distance[i], self.cos_previous[i + 1]);
        }
        state
    }

    /// The camera subpath's MIS state at x_end (end < k).
    fn camera_state(&self, end: usize) -> SubpathMis {
        let k = self.length();
        let mut state = SubpathMis::leave_camera(self.camera_pdf, self.light_paths);
        state.arrive(self.distance[k - 1], self.cos_next[k - 1]);
        for i in (end + 1..k).rev() {
            state.scatter(
                self.toward_light[i],
                self.toward_camera[i],
                self.cos_previous[i],
                self.delta[i],
            );
            state.arrive(self.distance[i - 1], self.cos_next[i - 1]);
        }
        state
    }

    /// Strategy s's weight as the integrator computes it, from the subpaths' states.
    fn incremental_weight(&self, s: usize) -> f64 {
        let k = self.length();
        if s == 0 {
            let emission = self.position_pdf * self.toward_camera[0];
            return light_hit_weight(&self.camera_state(0), self.position_pdf, emission);
        }
        let light = ConnectionEnd {
            state: if s == 1 {
                SubpathMis::at_light(self.position_pdf, self.hittable)
            } else {
                self.light_state(s - 1)
            },
            pdf_from_other: self.area_from_camera(s),
            reverse_pdf: self.toward_light[s - 1],
        };
        if s == k {
            return camera_connection_weight(&light);
        }
        let camera = ConnectionEnd {
            state: self.camera_state(s),
            pdf_from_other: self.area_from_light(s - 1),
            reverse_pdf: self.toward_camera[s],
        };
        connection_weight(&light, &camera)
    }
}

#[test]
fn the_weights_of_every_strategy_of_a_path_sum_to_one() {
    let mut rng = SmallRng::seed_from_u64(13);
    let mut checked = 0;
    for _ in 0..20_000 {
        let length = rng.random_range(1..=10);
        let path = RandomPath::new(&mut rng, length, Ranges::Wide).densities();
        let possible = (0..=length).filter(|&s| path.is_possible(s)).count();
        let sum: f64 = (0..=length).map(|s| path.weight(s)).sum();
        if possible == 0 {
            assert_eq!(sum, 0.0);
            continue;
        }
        checked += 1;
        assert!((sum - 1.0).abs() < 1e-12, "length {length}: weights sum to {sum}");
    }
    assert!(checked > 15_000, "{checked}");
}

#[test]
fn the_incremental_weights_equal_the_whole_path_reference() {
    let mut rng = SmallRng::seed_from_u64(14);
    let mut compared = 0;
    for _ in 0..20_000 {
        let length = rng.random_range(1..=10);
        let path = RandomPath::new(&mut rng, length, Ranges::Wide);
        let reference = path.densities();
        for s in (0..=length).filter(|&s| reference.is_possible(s)) {
            let expected = reference.weight(s);
            let incremental = path.incremental_weight(s);
            let error = (incremental - expected).abs() / expected.max(1e-300);
            assert!(
                error < 1e-9,
                "length {length}, s {s}: incremental {incremental}, reference {expected}, delta {:?}, hittable {}",
                path.delta,
                path.hittable
            );
            compared += 1;
        }
    }
    assert!(compared > 50_000, "{compared}");
}

#[test]
fn strategies_that_cannot_make_a_path_have_no_weight() {
    // x_0 punctual, x_1 a mirror, x_2 diffuse, x_3 the camera.
    let vertex = |delta| MisVertex {
        from_light: 0.5,
        from_camera: 2.0,
        delta,
    };
    let path = PathDensities {
        vertices: vec![vertex(false), vertex(true), vertex(false), vertex(false)],
        light_hittable: false,
    };
    // s = 0: the light cannot be hit; s = 1 and 2 connect at the mirror.
    let possible: Vec<usize> = (0..=3).filter(|&s| path.is_possible(s)).collect();
    assert_eq!(possible, [3]);
    assert_eq!(path.weight(3), 1.0);
    assert_eq!(path.weight(1), 0.0);
}

/// The GPU's weights (float32, computed as the kernels will) on random paths against the f64
/// reference that stores each whole path: every strategy within 2e-4, and the weights of each
/// path summing to 1.
#[test]
fn the_gpu_weights_match_the_whole_path_reference() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut rng = SmallRng::seed_from_u64(15);
    // An awkward count: not a multiple of the workgroup.
    let count = 4099usize;
    let paths: Vec<RandomPath> = (0..count)
        .map(|_| {
            let length = rng.random_range(1..BDPT_PROBE_MAX_VERTICES as usize);
            RandomPath::new(&mut rng, length, Ranges::Scene)
        })
        .collect();
    let floats: Vec<f32> = paths.iter().flat_map(RandomPath::probe_floats).collect();
    let input = Buffer::from_slice(context, "bdpt mis paths", &floats, BufferUsage::STORAGE).unwrap();
    let max = BDPT_PROBE_MAX_VERTICES as usize;
    let output = Buffer::gpu_storage(context, "bdpt mis weights", (count * max * 4) as u64).unwrap();
    let pipeline = ComputePipeline::<BdptMisProbePush>::new(context, ids::DIAGNOSTICS_BDPT_MIS_PROBE, &[]).unwrap();
    let push = BdptMisProbePush {
        paths: input.address(),
        weights: output.address(),
        count: count as u32,
        pad0: 0,
    };
    common::run_probe(context, &pipeline, &push, push.count);
    let weights: Vec<f32> = output.read_back(context, count * max).unwrap();
    let mut worst = 0.0f64;
    for (p, path) in paths.iter().enumerate() {
        let reference = path.densities();
        let gpu_weights = &weights[p * max..(p + 1) * max];
        for (s, &weight) in gpu_weights.iter().enumerate() {
            let expected = if s <= path.length() { reference.weight(s) } else { 0.0 };
            let error = (f64::from(weight) - expected).abs();
            worst = worst.max(error);
            assert!(
                error < 2e-4,
                "path {p} (length {}), s {s}: GPU {weight}, reference {expected}",
                path.length()
            );
        }
        let sum: f64 = gpu_weights.iter().map(|&w| f64::from(w)).sum();
        let possible = (0..=path.length()).any(|s| reference.is_possible(s));
        if possible {
            assert!((sum - 1.0).abs() < 2e-4, "path {p}: GPU weights sum to {sum}");
        }
    }
    eprintln!("largest difference between GPU and reference weights: {worst:.2e}");
    gpu.finish();
}
