//! Light subpath starts (emission.glsl, for bidirectional methods): over many samples, the
//! mean of their weights is the power the scene's lights emit (emissive triangles, point, spot
//! and directional lights, a constant environment), so the sampling densities are those the
//! weights divide by; and each start is where its light is, heading into the scene.

use crate::common;

use glam::{Vec3, Vec4};
use wavetrace::environment::Environment;
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{Buffer, BufferUsage, ComputePipeline, DispatchSize};
use wavetrace::integrator::{RenderSettings, SceneResources};
use wavetrace::interface::{EmissionProbePush, PassConstants, PROBE_GROUP};
use wavetrace::scene::{Material, Mesh, PunctualKind, PunctualLight, Scene};

fn quad(corners: [Vec3; 4], material: u32) -> Mesh {
    Mesh {
        name: "quad".into(),
        positions: corners.to_vec(),
        indices: vec![0, 1, 2, 0, 2, 3],
        material,
        ..Mesh::default()
    }
}

const GLOW: Vec3 = Vec3::new(1.0, 2.0, 3.0);
const POINT: Vec3 = Vec3::new(5.0, 4.0, 3.0);
const SPOT: Vec3 = Vec3::new(2.0, 2.0, 8.0);
const SUN: Vec3 = Vec3::new(0.5, 0.7, 0.9);
const SKY: Vec3 = Vec3::new(0.2, 0.3, 0.4);
const SPOT_CONE: (f32, f32) = (0.3, 0.6);

/// Which lights a test scene has.
#[derive(Clone, Copy)]
struct Lights {
    quad: bool,
    point: bool,
    spot: bool,
    sun: bool,
    sky: bool,
}

const ALL: Lights = Lights {
    quad: true,
    point: true,
    spot: true,
    sun: true,
    sky: true,
};
const NONE: Lights = Lights {
    quad: false,
    point: false,
    spot: false,
    sun: false,
    sky: false,
};

/// A floor, a 0.4 x 0.6 quad facing it (area 0.24, emissive or not), and the punctual lights asked for.
fn scene(lights: Lights) -> Scene {
    let white = Material {
        name: "white".into(),
        base_color: Vec4::ONE,
        metallic: 0.0,
        ..Material::default()
    };
    let glow = Material {
        name: "glow".into(),
        emission: if lights.quad { GLOW } else { Vec3::ZERO },
        ..white.clone()
    };
    let floor = quad(
        [
            Vec3::new(-2.0, 0.0, -2.0),
            Vec3::new(-2.0, 0.0, 2.0),
            Vec3::new(2.0, 0.0, 2.0),
            Vec3::new(2.0, 0.0, -2.0),
        ],
        0,
    );
    // Wound to face down.
    let lamp = quad(
        [
            Vec3::new(-0.2, 1.5, -0.3),
            Vec3::new(0.2, 1.5, -0.3),
            Vec3::new(0.2, 1.5, 0.3),
            Vec3::new(-0.2, 1.5, 0.3),
        ],
        1,
    );
    let light = |kind, position, direction: Vec3, intensity| PunctualLight {
        name: "lamp".into(),
        kind,
        position,
        direction: direction.normalize(),
        intensity,
        range: None,
    };
    let mut punctual = Vec::new();
    if lights.point {
        punctual.push(light(PunctualKind::Point, Vec3::new(0.5, 1.0, 0.0), Vec3::NEG_Y, POINT));
    }
    if lights.spot {
        let cone = PunctualKind::Spot {
            inner: SPOT_CONE.0,
            outer: SPOT_CONE.1,
        };
        punctual.push(light(cone, Vec3::new(-0.5, 1.2, 0.2), Vec3::new(0.2, -1.0, 0.1), SPOT));
    }
    if lights.sun {
        punctual.push(light(
            PunctualKind::Directional,
            Vec3::ZERO,
            Vec3::new(0.3, -1.0, 0.2),
            SUN,
        ));
    }
    Scene {
        source: "emission".into(),
        meshes: vec![floor, lamp],
        instances: common::one_instance_of_each(2),
        materials: vec![white, glow],
        textures: Vec::new(),
        lights: punctual,
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// The power of the lights: pi L A for the quad, 4 pi I for the point light, I times the cone's
/// solid angle weighted by the smooth edge for the spot light, E pi r^2 for the directional
/// light and 4 pi L pi r^2 for the environment, r the scene's bounding radius.
fn expected_power(scene: &Scene, lights: Lights) -> [f64; 3] {
    let pi = std::f64::consts::PI;
    let radius = f64::from(scene.radius());
    let (cos_inner, cos_outer) = (f64::from(SPOT_CONE.0.cos()), f64::from(SPOT_CONE.1.cos()));
    // 2 pi times the integral over cos theta of the squared edge: 1 inside, ((mu - o) / (i - o))^2
    // across the edge (whose integral is (i - o) / 3).
    let spot_solid_angle = 2.0 * pi * ((1.0 - cos_inner) + (cos_inner - cos_outer) / 3.0);
    let disk = pi * radius * radius;
    let on = |present: bool| if present { 1.0 } else { 0.0 };
    std::array::from_fn(|channel| {
        let c = |v: Vec3| f64::from(v[channel]);
        on(lights.quad) * pi * c(GLOW) * 0.24
            + on(lights.point) * 4.0 * pi * c(POINT)
            + on(lights.spot) * spot_solid_angle * c(SPOT)
            + on(lights.sun) * c(SUN) * disk
            + on(lights.sky) * 4.0 * pi * c(SKY) * disk
    })
}

/// The mean weight of `count` light subpath starts in the scene with `lights`, checking each
/// start on the way.
fn mean_weight(gpu: &common::TestGpu, lights: Lights, count: u32) -> ([f64; 3], Scene) {
    let context = &gpu.context;
    let scene = scene(lights);
    let backend = context.trace_backends()[0];
    let settings = RenderSettings {
        environment: lights.sky.then(|| Environment::constant(SKY)),
        ..RenderSettings::new(8, 8, 1, 8, backend)
    };
    let resources = SceneResources::upload(context, &scene, &settings).unwrap();
    let mut constants = PassConstants::default();
    resources.fill(&scene, &settings, &mut constants);
    context
        .run_once("build lights", |commands| resources.record_build(commands))
        .unwrap();
    let constants_buffer = Buffer::from_slice(context, "constants", &[constants], BufferUsage::STORAGE).unwrap();
    let results = Buffer::gpu_storage(context, "emission samples", u64::from(count) * 48).unwrap();
    let pipeline = ComputePipeline::<EmissionProbePush>::new(context, ids::DIAGNOSTICS_EMISSION_PROBE, &[]).unwrap();
    let push = EmissionProbePush {
        constants: constants_buffer.address(),
        results: results.address(),
        count,
        seed: 7,
    };
    // The lights read emissive textures: the probe binds the scene's texture set.
    context
        .run_once("emission probe", |commands| {
            commands.use_textures(&resources.scene.textures);
            let groups = count.div_ceil(PROBE_GROUP);
            commands.dispatch(&pipeline, &push, DispatchSize { x: groups, y: 1 });
            Ok(())
        })
        .unwrap();
    let samples: Vec<[Vec4; 3]> = results.read_back(context, count as usize).unwrap();

    let (low, high) = scene.bounds().unwrap();
    let (center, radius) = ((low + high) * 0.5, scene.radius());
    let mut sum = [0.0f64; 3];
    for [weight, origin, direction] in &samples {
        assert_eq!(weight.w, 1.0, "every sample finds a light");
        for (total, w) in sum.iter_mut().zip(weight.to_array()) {
            *total += f64::from(w);
        }
        let d = direction.truncate();
        assert!((d.length() - 1.0).abs() < 1e-4, "{d}");
        assert!(origin.w > 0.0 && origin.w <= 1.0, "cos_out {}", origin.w);
        // Every start is inside the scene's sphere or on the disk one radius outside it.
        let distance = (origin.truncate() - center).length();
        assert!(distance <= radius * 1.4143, "{origin}");
        // Only the quad and the sky can be found by a camera subpath.
        let hittable = direction.w == 1.0;
        assert!(!hittable || lights.quad || lights.sky);
    }
    (sum.map(|s| s / f64::from(count)), scene)
}

/// Each kind of light alone, then all together: 1% is about ten standard errors of the mean
/// for a million samples, and the quad's share of the whole is too small for the mixed scene
/// alone to check it.
#[test]
fn the_mean_weight_of_light_subpath_starts_is_the_power_of_the_lights() {
    let gpu = common::gpu();
    let only = |f: fn(&mut Lights)| {
        let mut lights = NONE;
        f(&mut lights);
        lights
    };
    let cases = [
        ("quad", only(|l| l.quad = true)),
        ("point", only(|l| l.point = true)),
        ("spot", only(|l| l.spot = true)),
        ("sun", only(|l| l.sun = true)),
        ("sky", only(|l| l.sky = true)),
        ("all", ALL),
    ];
    for (name, lights) in cases {
        let (mean, scene) = mean_weight(&gpu, lights, 1_000_003);
        let expected = expected_power(&scene, lights);
        for channel in 0..3 {
            let ratio = mean[channel] / expected[channel];
            eprintln!(
                "{name} channel {channel}: mean weight {:.4}, power {:.4}, ratio {ratio:.5}",
                mean[channel], expected[channel]
            );
            assert!(
                (ratio - 1.0).abs() < 0.01,
                "{name} channel {channel}: {} vs {}",
                mean[channel],
                expected[channel]
            );
        }
    }
    gpu.finish();
}
