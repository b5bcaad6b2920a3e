//! Shared by the integration tests: a context with the Khronos validation layer always on,
//! and a check, after the context is gone, that validation reported no error; scenes, renders
//! and the glTF pieces tests write.

#![allow(dead_code)]

use std::sync::Arc;

use wavetrace::gpu::{Context, ContextDesc, MessageCounts, Validation};

pub struct TestGpu {
    pub context: Context,
    counts: Arc<MessageCounts>,
}

pub fn gpu() -> TestGpu {
    gpu_with_timeout(None)
}

/// `gpu()` with a hang timeout of its own (`None`: the environment's or the default).
pub fn gpu_with_timeout(gpu_timeout: Option<std::time::Duration>) -> TestGpu {
    let _ = env_logger::builder().is_test(true).try_init();
    let context = Context::new(&ContextDesc {
        validation: Validation::On,
        device: None,
        gpu_timeout,
        presentation: None,
    })
    .unwrap_or_else(|e| panic!("tests need a Vulkan device with ray tracing (run tools/setup.sh): {e}"));
    assert!(context.validation_enabled());
    let counts = context.message_counts();
    TestGpu { context, counts }
}

impl TestGpu {
    /// Drops the context (teardown messages count too) and fails on any validation error.
    pub fn finish(self) {
        let counts = self.counts;
        drop(self.context);
        assert_eq!(
            counts.errors(),
            0,
            "the validation layer reported errors (see the log above)"
        );
    }
}

/// One emissive quad (`corners` counter-clockwise seen from the side it emits to, grey base
/// colour, `emission`) and a square camera at `world_from_camera` with vertical field `yfov`.
pub fn quad_emitter_scene(
    name: &str,
    corners: [glam::Vec3; 4],
    emission: glam::Vec3,
    world_from_camera: glam::Mat4,
    yfov: f32,
) -> wavetrace::scene::Scene {
    use wavetrace::scene::{Camera, Instance, Material, Mesh, Scene};
    Scene {
        source: name.into(),
        meshes: vec![Mesh {
            name: "light".into(),
            positions: corners.to_vec(),
            indices: vec![0, 1, 2, 0, 2, 3],
            material: 0,
            ..Mesh::default()
        }],
        instances: vec![Instance {
            mesh: 0,
            world_from_object: glam::Mat4::IDENTITY,
            node: "light".into(),
        }],
        materials: vec![Material {
            name: name.into(),
            base_color: glam::Vec4::new(0.8, 0.8, 0.8, 1.0),
            metallic: 0.0,
            specular: 0.0,
            emission,
            ..Material::default()
        }],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera,
            projection: wavetrace::scene::Projection::Perspective { yfov },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// A scene from tests/scenes by name (`cornell-box` -> tests/scenes/cornell-box/cornell-box.gltf).
pub fn load_scene(name: &str) -> wavetrace::scene::Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenes")
        .join(name)
        .join(format!("{name}.gltf"));
    wavetrace::scene::Scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}

/// Möller–Trumbore in f64: the distance along `direction` to triangle `v`, if the line hits it.
/// The CPU reference intersector of every test that checks GPU traversal.
pub fn intersect(origin: glam::Vec3, direction: glam::Vec3, v: [glam::Vec3; 3]) -> Option<f64> {
    let (o, d) = (origin.as_dvec3(), direction.as_dvec3());
    let (a, b, c) = (v[0].as_dvec3(), v[1].as_dvec3(), v[2].as_dvec3());
    let (e1, e2) = (b - a, c - a);
    let p = d.cross(e2);
    let det = e1.dot(p);
    if det.abs() < 1e-14 {
        return None;
    }
    let s = o - a;
    let u = s.dot(p) / det;
    let q = s.cross(e1);
    let w = d.dot(q) / det;
    if u < 0.0 || w < 0.0 || u + w > 1.0 {
        return None;
    }
    Some(e2.dot(q) / det)
}

use glam::{Mat4, Vec3};
use wavetrace::scene::{Camera, Instance, Material, Mesh, Scene};

pub const SPHERE_CAMERA_DISTANCE: f32 = 4.0;
pub const SPHERE_YFOV_DEGREES: f32 = 36.0;

/// A unit sphere at the origin with its exact normals, seen from (0, 0, 4) down -Z with a
/// 36-degree field of view, fine enough that the tessellation
/// stays within the tolerances (a flat facet would see other angles than the normals say).
pub fn sphere_scene(material: Material) -> Scene {
    let (rings, segments) = (96u32, 192u32);
    let mut positions = Vec::new();
    for ring in 0..=rings {
        let theta = std::f32::consts::PI * ring as f32 / rings as f32;
        for segment in 0..=segments {
            let phi = std::f32::consts::TAU * segment as f32 / segments as f32;
            positions.push(Vec3::new(
                theta.sin() * phi.cos(),
                theta.cos(),
                -theta.sin() * phi.sin(),
            ));
        }
    }
    let mut indices = Vec::new();
    let row = segments + 1;
    for ring in 0..rings {
        for segment in 0..segments {
            let a = ring * row + segment;
            let (b, c, d) = (a + row, a + row + 1, a + 1);
            indices.extend_from_slice(&[a, b, c, a, c, d]);
        }
    }
    let normals = positions.clone();
    Scene {
        source: "furnace sphere".into(),
        meshes: vec![Mesh {
            name: "sphere".into(),
            positions,
            normals: Some(normals),
            uvs: None,
            second_uvs: None,
            tangents: None,
            colors: None,
            indices,
            material: 0,
        }],
        instances: vec![Instance {
            mesh: 0,
            world_from_object: Mat4::IDENTITY,
            node: "sphere".into(),
        }],
        materials: vec![material],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: Some(Camera {
            world_from_camera: Mat4::from_translation(Vec3::Z * SPHERE_CAMERA_DISTANCE),
            projection: wavetrace::scene::Projection::Perspective {
                yfov: SPHERE_YFOV_DEGREES.to_radians(),
            },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// `settings` rendered once: the mean radiance.
pub fn render(
    context: &Context,
    scene: &Scene,
    settings: &wavetrace::integrator::RenderSettings,
) -> wavetrace::film::RgbImage {
    wavetrace::integrator::Renderer::new(context, scene, settings)
        .unwrap()
        .render()
        .unwrap()
}

/// `settings` rendered once: the mean radiance and the statistics.
pub fn render_with_stats(
    context: &Context,
    scene: &Scene,
    settings: &wavetrace::integrator::RenderSettings,
) -> (wavetrace::film::RgbImage, wavetrace::integrator::RenderStats) {
    wavetrace::integrator::Renderer::new(context, scene, settings)
        .unwrap()
        .render_with_progress(|_| {})
        .unwrap()
}

/// The integrators that sample paths as the conventions define them, whose images a check
/// against an exact expectation holds alike.
pub const PATH_INTEGRATORS: [wavetrace::integrator::IntegratorKind; 3] = [
    wavetrace::integrator::IntegratorKind::Wavefront,
    wavetrace::integrator::IntegratorKind::Megakernel,
    wavetrace::integrator::IntegratorKind::Bdpt,
];

/// `base` rendered with each integrator on each trace backend the device has, in that order,
/// under validation (which must report nothing).
pub fn render_each(
    scene: &Scene,
    base: &wavetrace::integrator::RenderSettings,
    integrators: &[wavetrace::integrator::IntegratorKind],
) -> Vec<wavetrace::film::RgbImage> {
    render_each_named(scene, base, integrators)
        .into_iter()
        .map(|(_, image)| image)
        .collect()
}

/// `render_each`, each image with its integrator and backend ("Bdpt on Pipeline") for messages.
pub fn render_each_named(
    scene: &Scene,
    base: &wavetrace::integrator::RenderSettings,
    integrators: &[wavetrace::integrator::IntegratorKind],
) -> Vec<(String, wavetrace::film::RgbImage)> {
    let gpu = gpu();
    let mut images = Vec::new();
    for &integrator in integrators {
        for &backend in gpu.context.trace_backends() {
            let settings = wavetrace::integrator::RenderSettings {
                integrator,
                backend,
                ..base.clone()
            };
            let mut renderer = wavetrace::integrator::Renderer::new(&gpu.context, scene, &settings).unwrap();
            images.push((format!("{integrator:?} on {backend:?}"), renderer.render().unwrap()));
        }
    }
    gpu.finish();
    images
}

/// Every file under `folder` (recursively) whose extension is one of `extensions`, sorted:
/// the tests that read the repository's own sources and documents walk it this way.
pub fn files_under(folder: &std::path::Path, extensions: &[&str]) -> Vec<std::path::PathBuf> {
    fn walk(folder: &std::path::Path, extensions: &[&str], found: &mut Vec<std::path::PathBuf>) {
        let entries = std::fs::read_dir(folder).unwrap_or_else(|e| panic!("{}: {e}", folder.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                walk(&path, extensions, found);
            } else if path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.contains(&e))
            {
                found.push(path);
            }
        }
    }
    let mut found = Vec::new();
    walk(folder, extensions, &mut found);
    found.sort();
    found
}

/// Runs a diagnostic probe (a compute shader of `PROBE_GROUP` threads a workgroup, one item a
/// thread) once over `count` items, and waits for it.
pub fn run_probe<P: bytemuck::Pod>(
    context: &Context,
    pipeline: &wavetrace::gpu::ComputePipeline<P>,
    push: &P,
    count: u32,
) {
    let groups = count.div_ceil(wavetrace::interface::PROBE_GROUP);
    context
        .run_once(pipeline.kernel(), |commands| {
            commands.dispatch(pipeline, push, wavetrace::gpu::DispatchSize { x: groups, y: 1 });
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{}: {e}", pipeline.kernel()));
}

/// Pearson's statistic over bins pooled to an expected count of at least 20, and the number
/// of bins; passes within 5 sigma of its k - 1 degrees of freedom.
pub fn chi_square(counts: &[u64], probabilities: &[f64], draws: u64) -> (f64, usize) {
    let (mut chi2, mut bins, mut expected_bin, mut observed_bin) = (0.0, 0usize, 0.0, 0.0);
    for (i, &count) in counts.iter().enumerate() {
        expected_bin += probabilities[i] * draws as f64;
        observed_bin += count as f64;
        if expected_bin >= 20.0 || i + 1 == counts.len() {
            if expected_bin > 0.0 {
                chi2 += (observed_bin - expected_bin).powi(2) / expected_bin;
                bins += 1;
            } else {
                assert_eq!(observed_bin, 0.0, "drawn where nothing was expected");
            }
            (expected_bin, observed_bin) = (0.0, 0.0);
        }
    }
    (chi2, bins)
}

/// Whether two renders of the same samples by different kernels agree: bit for bit, or, where
/// a driver contracts multiply-adds differently in the two kernels (NVIDIA does) and one ulp
/// flips a choice, as estimates: means within 1% and 8x8 blocks within `block8_limit`.
pub fn agree_as_estimates(
    image: &wavetrace::film::RgbImage,
    other: &wavetrace::film::RgbImage,
    block8_limit: f64,
) -> (bool, wavetrace::film::metrics::Comparison) {
    let c = wavetrace::film::metrics::compare(image, other).unwrap();
    let agree =
        image == other || (c.block8_rel_mse < block8_limit && c.mean_ratio.iter().all(|r| (r - 1.0).abs() < 0.01));
    (agree, c)
}

/// Mitsuba 3's reference of a test scene at `resolution` and `depth` (tests/scenes/NAME/ref/).
pub fn reference(scene: &str, resolution: u32, depth: u32) -> wavetrace::film::RgbImage {
    wavetrace::film::read_exr(
        &std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/scenes/{scene}/ref/{scene}-{resolution}-d{depth}.exr")),
    )
    .unwrap()
}

/// Every channel's mean within `tolerance` of the image it was compared with (ratio 1);
/// `what` names the render in the failure.
pub fn assert_means_within(c: &wavetrace::film::metrics::Comparison, tolerance: f64, what: &str) {
    for ratio in c.mean_ratio {
        assert!(
            (ratio - 1.0).abs() < tolerance,
            "{what}: mean ratio {ratio}, more than {tolerance} from 1: {c:?}"
        );
    }
}

/// A point light between a Lambertian floor (y = 0, albedo `MIRRORED_FLOOR_ALBEDO`, x and z in
/// [-1, 1]) and a wide mirror facing down at y = 2 (reflectance `MIRROR_REFLECTANCE` at every
/// angle), seen straight down from y = 1.5 with a 60-degree field of view, so that every pixel
/// sees the floor. At depth 3 a floor point's light is exact: the light's and, through the
/// mirror, its image's at y = 4 - 1 (`mirrored_floor_radiance`). No path tracer reaches the
/// image's share (a point cannot be hit, and the mirror stops next-event estimation); light
/// tracing does.
pub fn point_light_under_a_mirror_scene() -> Scene {
    use wavetrace::scene::{PunctualKind, PunctualLight};
    let quad = |half: f32, y: f32, down: bool, material: u32| {
        let mut positions = vec![
            Vec3::new(-half, y, -half),
            Vec3::new(-half, y, half),
            Vec3::new(half, y, half),
            Vec3::new(half, y, -half),
        ];
        if down {
            positions.reverse();
        }
        Mesh {
            name: format!("quad at y = {y}"),
            positions,
            indices: vec![0, 1, 2, 0, 2, 3],
            material,
            ..Mesh::default()
        }
    };
    let floor = Material {
        name: "floor".into(),
        base_color: Vec3::splat(MIRRORED_FLOOR_ALBEDO).extend(1.0),
        metallic: 0.0,
        specular: 0.0,
        ..Material::default()
    };
    let mirror = Material {
        name: "mirror".into(),
        base_color: Vec3::splat(MIRROR_REFLECTANCE).extend(1.0),
        metallic: 1.0,
        roughness: 0.0,
        ..Material::default()
    };
    Scene {
        source: "a point light under a mirror".into(),
        meshes: vec![quad(1.0, 0.0, false, 0), quad(6.0, 2.0, true, 1)],
        instances: one_instance_of_each(2),
        materials: vec![floor, mirror],
        textures: Vec::new(),
        lights: vec![PunctualLight {
            name: "point".into(),
            kind: PunctualKind::Point,
            position: MIRRORED_POINT_LIGHT,
            direction: Vec3::NEG_Y,
            intensity: MIRRORED_POINT_INTENSITY,
            range: None,
        }],
        camera: Some(Camera {
            world_from_camera: Mat4::from_translation(Vec3::new(0.0, 1.5, 0.0))
                * Mat4::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            projection: wavetrace::scene::Projection::Perspective {
                yfov: 60f32.to_radians(),
            },
            znear: 0.0,
            aspect_ratio: Some(1.0),
        }),
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

/// One instance of each of a scene's first `meshes` meshes, where they are, named by index.
pub fn one_instance_of_each(meshes: u32) -> Vec<Instance> {
    (0..meshes)
        .map(|mesh| Instance {
            mesh,
            world_from_object: Mat4::IDENTITY,
            node: format!("mesh {mesh}"),
        })
        .collect()
}

pub const MIRRORED_FLOOR_ALBEDO: f32 = 0.8;
pub const MIRROR_REFLECTANCE: f32 = 0.9;
pub const MIRRORED_POINT_LIGHT: Vec3 = Vec3::new(0.3, 1.0, -0.2);
pub const MIRRORED_POINT_INTENSITY: Vec3 = Vec3::new(2.0, 1.5, 1.0);

/// The exact image of `point_light_under_a_mirror_scene` at depth 3, `size` pixels square, each
/// pixel the mean of 8 x 8 points: the light's own radiance off the floor, and with
/// `through_mirror` its image's as well.
pub fn mirrored_floor_radiance(size: u32, through_mirror: bool) -> Vec<[f64; 3]> {
    let intensity = MIRRORED_POINT_INTENSITY.as_dvec3();
    let light = MIRRORED_POINT_LIGHT.as_dvec3();
    let image = glam::DVec3::new(light.x, 4.0 - light.y, light.z);
    let half_width = 1.5 * (30f64.to_radians()).tan();
    let irradiance_from = |source: glam::DVec3, p: glam::DVec3| {
        let d = source - p;
        source.y / d.length() / d.length_squared()
    };
    let sub = 8;
    (0..size * size)
        .map(|pixel| {
            let (px, py) = (pixel % size, pixel / size);
            let mut sum = 0.0;
            for s in 0..sub * sub {
                let u = (f64::from(px) + (f64::from(s % sub) + 0.5) / f64::from(sub)) / f64::from(size);
                let v = (f64::from(py) + (f64::from(s / sub) + 0.5) / f64::from(sub)) / f64::from(size);
                // Looking down -Y with +X to the right and image rows down the screen along +Z.
                let p = glam::DVec3::new((2.0 * u - 1.0) * half_width, 0.0, (2.0 * v - 1.0) * half_width);
                let mirrored = if through_mirror {
                    f64::from(MIRROR_REFLECTANCE) * irradiance_from(image, p)
                } else {
                    0.0
                };
                sum += irradiance_from(light, p) + mirrored;
            }
            let e = sum / f64::from(sub * sub) * f64::from(MIRRORED_FLOOR_ALBEDO) / std::f64::consts::PI;
            (intensity * e).to_array()
        })
        .collect()
}

/// How far `image` of `point_light_under_a_mirror_scene` is from `mirrored_floor_radiance`:
/// the whole image's ratio to it (channels summed), and the 8 x 8 blocks' ratio furthest from 1.
pub fn mirrored_floor_ratios(image: &wavetrace::film::RgbImage, through_mirror: bool) -> (f64, f64) {
    let size = image.width as u32;
    let exact = mirrored_floor_radiance(size, through_mirror);
    let sum = |p: [f64; 3]| p.iter().sum::<f64>();
    let rendered: Vec<f64> = image.pixels.iter().map(|p| sum(p.map(f64::from))).collect();
    let expected: Vec<f64> = exact.into_iter().map(sum).collect();
    let block_sum = |values: &[f64], bx: u32, by: u32| {
        let mut total = 0.0;
        for y in by * 8..by * 8 + 8 {
            for x in bx * 8..bx * 8 + 8 {
                total += values[(y * size + x) as usize];
            }
        }
        total
    };
    let mut furthest = 1.0f64;
    for by in 0..size / 8 {
        for bx in 0..size / 8 {
            let ratio = block_sum(&rendered, bx, by) / block_sum(&expected, bx, by);
            if (ratio - 1.0).abs() > (furthest - 1.0).abs() || ratio.is_nan() {
                furthest = ratio;
            }
        }
    }
    (rendered.iter().sum::<f64>() / expected.iter().sum::<f64>(), furthest)
}

/// Whether one of the scene's warnings holds every one of `words`.
pub fn warned(scene: &Scene, words: &[&str]) -> bool {
    scene.warnings.iter().any(|w| words.iter().all(|word| w.contains(word)))
}

/// Appends `bytes` to a glTF `document` as a buffer of its own (a data URI) with one accessor
/// over all of it; returns the accessor's index.
pub fn append_accessor(
    document: &mut serde_json::Value,
    bytes: &[u8],
    component_type: u32,
    count: usize,
    kind: &str,
    normalized: bool,
) -> usize {
    use base64::Engine as _;
    let buffer = document["buffers"].as_array().unwrap().len();
    document["buffers"]
        .as_array_mut()
        .unwrap()
        .push(serde_json::json!({"byteLength": bytes.len(),
        "uri": format!("data:application/octet-stream;base64,{}",
                       base64::engine::general_purpose::STANDARD.encode(bytes))}));
    let views = document["bufferViews"].as_array_mut().unwrap();
    views.push(serde_json::json!({"buffer": buffer, "byteLength": bytes.len()}));
    let view = views.len() - 1;
    let accessors = document["accessors"].as_array_mut().unwrap();
    accessors.push(
        serde_json::json!({"bufferView": view, "componentType": component_type, "count": count,
                                      "type": kind, "normalized": normalized}),
    );
    accessors.len() - 1
}

/// A `width` x `height` RGBA8 texture of one level, read texel by texel (NEAREST, no mipmaps),
/// clamped to its edge: what a test that knows which texel each point reads builds.
pub fn nearest_texture(name: &str, width: u32, height: u32, rgba: Vec<u8>, srgb: bool) -> wavetrace::scene::Texture {
    use wavetrace::gpu::{MipFilter, SamplerDesc, Wrap};
    wavetrace::scene::Texture {
        name: name.into(),
        width,
        height,
        srgb,
        levels: std::sync::Arc::new(vec![rgba]),
        sampler: SamplerDesc {
            wrap_u: Wrap::ClampToEdge,
            wrap_v: Wrap::ClampToEdge,
            linear_mag: false,
            linear_min: false,
            mip: MipFilter::BaseLevel,
        },
    }
}
