//! glTF's orthographic cameras: parallel rays from the image's place on the camera's plane,
//! 2 ymag high. Two emitters at different depths are the same size on the image and exactly
//! their radiance for every integrator on every backend; the bidirectional integrators agree
//! with the path tracer on the Cornell box seen that way (which only holds if they leave out
//! the light tracing strategies no light path can take to parallel rays: with them BDPT's mean
//! was 0.22 of the path tracer's, and splatting through a pinhole's projection 1.06); light
//! culling's screen tiles serve the view; the importer reads the camera and names bad ones.

use crate::common;

use glam::{Mat4, Quat, Vec3, Vec4};
use serde_json::Value;
use wavetrace::film::{metrics, RgbImage};
use wavetrace::gpu::TraceBackend;
use wavetrace::integrator::{IntegratorKind, MltSettings, RenderSettings};
use wavetrace::lights::{CullBuild, CullingFormat, CullingSettings};
use wavetrace::scene::{Camera, Material, Mesh, Projection, Scene};

const EMISSION: Vec3 = Vec3::new(1.5, 2.0, 2.5);
const WIDTH: u32 = 64;
const HEIGHT: u32 = 32;

/// A quad facing +Z (counter-clockwise seen from there) over x in `xs`, y in `ys`, at depth `z`.
fn quad_facing_the_camera(xs: [f32; 2], ys: [f32; 2], z: f32) -> Vec<Vec3> {
    vec![
        Vec3::new(xs[0], ys[0], z),
        Vec3::new(xs[1], ys[0], z),
        Vec3::new(xs[1], ys[1], z),
        Vec3::new(xs[0], ys[1], z),
    ]
}

/// Two emitters of the same size, 2 and 6 units before an orthographic camera at the origin
/// (ymag 1, looking down -Z), and a black quad covering the whole view half a unit before it,
/// which the near plane at 1 cuts away. On the 64 x 32 image a unit is 16 pixels: the emitters
/// cover columns 16-27 and 36-47, rows 8-23.
fn two_emitters_at_two_depths() -> Scene {
    let quads = [
        (quad_facing_the_camera([-1.0, -0.25], [-0.5, 0.5], -2.0), 0),
        (quad_facing_the_camera([0.25, 1.0], [-0.5, 0.5], -6.0), 0),
        (quad_facing_the_camera([-3.0, 3.0], [-2.0, 2.0], -0.5), 1),
    ];
    let meshes: Vec<Mesh> = quads
        .into_iter()
        .enumerate()
        .map(|(i, (positions, material))| Mesh {
            name: format!("quad {i}"),
            positions,
            indices: vec![0, 1, 2, 0, 2, 3],
            material,
            ..Mesh::default()
        })
        .collect();
    let black = Material {
        name: "black".into(),
        base_color: Vec4::new(0.0, 0.0, 0.0, 1.0),
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    };
    Scene {
        source: "two emitters at two depths".into(),
        instances: common::one_instance_of_each(meshes.len() as u32),
        meshes,
        materials: vec![
            Material {
                name: "emitter".into(),
                emission: EMISSION,
                ..black.clone()
            },
            black,
        ],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera: Mat4::IDENTITY,
            projection: Projection::Orthographic { xmag: 2.0, ymag: 1.0 },
            znear: 1.0,
            aspect_ratio: None,
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// Each pixel of an emitter's rectangle is the emitter's radiance (within rounding) and every
/// pixel a pixel away from both is black, for the path tracers and BDPT on every backend: a
/// pinhole would show the far emitter a third the size of the near one, and the black quad
/// the near plane cuts would hide both.
#[test]
fn parallel_rays_show_emitters_at_any_depth_at_one_size_and_their_radiance() {
    let base = RenderSettings::new(WIDTH, HEIGHT, 16, 4, TraceBackend::Pipeline);
    let images = common::render_each_named(&two_emitters_at_two_depths(), &base, &common::PATH_INTEGRATORS);
    let within = |x: u32, y: u32, columns: [u32; 2], margin: i64| {
        let (x, y) = (i64::from(x), i64::from(y));
        x >= i64::from(columns[0]) - margin && x < i64::from(columns[1]) + margin && y >= 8 - margin && y < 24 + margin
    };
    for (name, image) in &images {
        let (mut lit, mut dark) = (0, 0);
        for y in 0..HEIGHT {
            for x in 0..WIDTH {
                let pixel = Vec3::from_array(image.pixel(x as usize, y as usize));
                let inside = [[16, 28], [36, 48]].iter().any(|&c| within(x, y, c, -1));
                let near = [[16, 28], [36, 48]].iter().any(|&c| within(x, y, c, 1));
                if inside {
                    lit += 1;
                    assert!(
                        (pixel - EMISSION).abs().max_element() < 1e-4,
                        "{name}: pixel ({x}, {y}) is {pixel}, not the emitter's {EMISSION}"
                    );
                } else if !near {
                    dark += 1;
                    assert_eq!(pixel, Vec3::ZERO, "{name}: pixel ({x}, {y}) off the emitters");
                }
            }
        }
        assert_eq!(lit, 2 * 10 * 14, "{name}");
        assert!(dark > 1000, "{name}: {dark}");
    }
}

/// The Cornell box through an orthographic camera at its camera's place, 2 units high: the box
/// square on the image.
fn orthographic_cornell_box() -> Scene {
    let mut scene = common::load_scene("cornell-box");
    let camera = scene.camera.as_mut().expect("the Cornell box has a camera");
    camera.projection = Projection::Orthographic { xmag: 1.0, ymag: 1.0 };
    scene
}

fn mean(image: &RgbImage) -> f64 {
    image.pixels.iter().flatten().map(|&v| f64::from(v)).sum::<f64>() / (image.pixels.len() * 3) as f64
}

/// BDPT (its strategies that end at the camera left out of every weight) and PMLT (whose
/// light tracing proposals carry nothing) converge to the path tracer's image through an
/// orthographic camera: means within 2% (3% for PMLT's normalisation) and relMSE within noise.
#[test]
fn bidirectional_integrators_agree_with_the_path_tracer_through_parallel_rays() {
    let gpu = common::gpu();
    let backend = gpu.context.trace_backends()[0];
    let scene = orthographic_cornell_box();
    let reference = common::render(&gpu.context, &scene, &RenderSettings::new(64, 64, 1024, 8, backend));
    let perspective = common::reference("cornell-box", 64, 8);
    assert!(
        (mean(&reference) / mean(&perspective) - 1.0).abs() > 0.05,
        "the parallel view must differ from the pinhole's"
    );
    let bdpt = common::render(
        &gpu.context,
        &scene,
        &RenderSettings {
            integrator: IntegratorKind::Bdpt,
            ..RenderSettings::new(64, 64, 64, 8, backend)
        },
    );
    let c = metrics::compare(&bdpt, &reference).unwrap();
    eprintln!("orthographic cornell box, BDPT 64 spp against the path tracer at 1024: {c:?}");
    common::assert_means_within(&c, 0.02, "BDPT");
    assert!(c.rel_mse < 0.01, "BDPT: {c:?}");
    let pmlt = common::render(
        &gpu.context,
        &scene,
        &RenderSettings {
            integrator: IntegratorKind::Pmlt,
            mlt: MltSettings {
                chains: 4096,
                proposals: 16,
                bootstrap: 1 << 17,
                iterations: Some(16),
                pixel_importance: false,
                ..MltSettings::default()
            },
            ..RenderSettings::new(64, 64, 1, 8, backend)
        },
    );
    let c = metrics::compare(&pmlt, &reference).unwrap();
    eprintln!("orthographic cornell box, PMLT 4096 x 16 x 16 against the path tracer: {c:?}");
    assert_eq!(c.non_finite_pixels, 0);
    common::assert_means_within(&c, 0.03, "PMLT");
    assert!(c.rel_mse < 0.1, "PMLT: {c:?}");
    gpu.finish();
}

/// street-300 seen from its camera's place by an orthographic camera: culled through screen
/// tiles that are boxes along the camera's axis (and the grid beyond them), both builds and both
/// formats render what the unculled render does, and alike.
#[test]
fn light_culling_serves_an_orthographic_view() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut scene = common::load_scene("street-300");
    scene.camera.as_mut().expect("street-300 has a camera").projection =
        Projection::Orthographic { xmag: 30.0, ymag: 30.0 };
    let settings = |spp: u32, format: CullingFormat, build: CullBuild| RenderSettings {
        seed: 5,
        light_culling: CullingSettings {
            format,
            build,
            ..CullingSettings::default()
        },
        ..RenderSettings::new(64, 64, spp, 2, context.trace_backends()[0])
    };
    let reference = common::render(
        context,
        &scene,
        &settings(4096, CullingFormat::Off, CullBuild::default()),
    );
    let mut images = Vec::new();
    for build in CullBuild::ALL {
        for format in [CullingFormat::Bits, CullingFormat::Lists] {
            let (image, stats) = common::render_with_stats(context, &scene, &settings(256, format, build));
            let culling = stats.culling.expect("culling ran");
            assert_eq!((culling.tiles, culling.ranged_lights), (16, 300), "{culling:?}");
            assert!(
                culling.tiles_with_hits > 0 && culling.mean_lights_per_tile > 0.0,
                "{culling:?}"
            );
            let c = metrics::compare(&image, &reference).unwrap();
            eprintln!("orthographic street-300, {format:?} built by {build:?}, 256 spp: {c:?} {culling:?}");
            assert_eq!(c.non_finite_pixels, 0);
            common::assert_means_within(&c, 0.03, &format!("{format:?} by {build:?}"));
            images.push(image);
        }
    }
    assert!(
        images.windows(2).all(|w| w[0] == w[1]),
        "both builds and formats hold the same cells, so the same choices"
    );
    gpu.finish();
}

fn cornell_box_document() -> Value {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box/cornell-box.gltf");
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The Cornell box's file with its camera made orthographic as `orthographic` says, loaded
/// from a folder of its own beside a copy of its buffer.
fn load_with_orthographic(name: &str, orthographic: Value) -> Scene {
    let mut document = cornell_box_document();
    document["cameras"][0] = serde_json::json!({"type": "orthographic", "orthographic": orthographic});
    let folder = std::env::temp_dir().join(format!("wavetrace-orthographic-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let scenes = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenes/cornell-box");
    std::fs::copy(scenes.join("cornell-box.bin"), folder.join("cornell-box.bin")).unwrap();
    let path = folder.join("cornell-box.gltf");
    std::fs::write(&path, serde_json::to_vec(&document).unwrap()).unwrap();
    let scene = Scene::load(&path).unwrap();
    let _ = std::fs::remove_dir_all(&folder);
    scene
}

#[test]
fn the_importer_reads_orthographic_cameras_and_names_bad_ones() {
    let scene = load_with_orthographic(
        "plain",
        serde_json::json!({"xmag": 1.5, "ymag": 1.25, "znear": 0.0, "zfar": 10.0}),
    );
    let camera = scene.camera.expect("an orthographic camera renders");
    assert_eq!(camera.projection, Projection::Orthographic { xmag: 1.5, ymag: 1.25 });
    assert_eq!(camera.znear, 0.0);
    assert!(scene.warnings.is_empty(), "{:?}", scene.warnings);
    let render_camera = wavetrace::scene::RenderCamera::from_camera(&camera, 2.0);
    assert!(render_camera.orthographic && render_camera.half_height == 1.25 && render_camera.aspect == 2.0);

    let scene = load_with_orthographic(
        "mirrored",
        serde_json::json!({"xmag": -1.0, "ymag": -2.0, "znear": 0.5, "zfar": 10.0}),
    );
    assert_eq!(
        scene.camera.as_ref().map(|c| c.projection),
        Some(Projection::Orthographic { xmag: 1.0, ymag: 2.0 })
    );
    assert!(
        common::warned(&scene, &["magnification", "negative"]),
        "{:?}",
        scene.warnings
    );

    let scene = load_with_orthographic(
        "flat",
        serde_json::json!({"xmag": 1.0, "ymag": 0.0, "znear": 0.5, "zfar": 10.0}),
    );
    assert!(scene.camera.is_none(), "a camera of zero magnification renders nothing");
    assert!(
        common::warned(&scene, &["camera ignored", "magnification"]),
        "{:?}",
        scene.warnings
    );
}

/// The orthographic camera keeps the node's orientation and place but not its scale, as the
/// pinhole's field of view does.
#[test]
fn the_node_s_scale_does_not_change_the_orthographic_image() {
    let turned = Mat4::from_rotation_translation(Quat::from_rotation_y(0.3), Vec3::new(1.0, 2.0, 3.0));
    let camera = |world_from_camera: Mat4| Camera {
        world_from_camera,
        projection: Projection::Orthographic { xmag: 2.0, ymag: 1.0 },
        znear: 0.0,
        aspect_ratio: None,
    };
    let plain = wavetrace::scene::RenderCamera::from_camera(&camera(turned), 1.0);
    let scaled = wavetrace::scene::RenderCamera::from_camera(&camera(turned * Mat4::from_scale(Vec3::splat(3.0))), 1.0);
    assert!((plain.forward - scaled.forward).length() < 1e-6 && plain.half_height == scaled.half_height);
    assert!((plain.origin - scaled.origin).length() < 1e-5);
}
