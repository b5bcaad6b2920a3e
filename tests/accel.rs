//! The acceleration structures against a brute-force CPU intersector: random rays through
//! the reference scenes must find the same nearest triangle at the same distance.

use crate::common;

use glam::{Mat4, Vec3};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::accel::SceneAccel;
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{
    Buffer, BufferUsage, ComputePipeline, Context, RayTracingPipeline, RayTracingShaders, TraceBackend,
};
use wavetrace::interface::{ProbeHit, ProbeRay, TraceProbePush};
use wavetrace::scene::{GpuMeshes, Instance, Scene};

fn load(name: &str) -> Scene {
    common::load_scene(name)
}

/// The nearest and second-nearest hits: (t, instance, primitive), and the runner-up's t.
fn cpu_trace(scene: &Scene, ray: &ProbeRay) -> (Option<(f64, usize, usize)>, f64) {
    let mut best: Option<(f64, usize, usize)> = None;
    let mut second = f64::INFINITY;
    for (i, instance) in scene.instances.iter().enumerate() {
        let mesh = &scene.meshes[instance.mesh as usize];
        for (p, tri) in mesh.indices.chunks_exact(3).enumerate() {
            let v = [0, 1, 2].map(|k| {
                instance
                    .world_from_object
                    .transform_point3(mesh.positions[tri[k] as usize])
            });
            let Some(t) = common::intersect(ray.origin, ray.direction, v) else {
                continue;
            };
            if t < f64::from(ray.t_min) || t > f64::from(ray.t_max) {
                continue;
            }
            match best {
                Some((bt, ..)) if t >= bt => second = second.min(t),
                _ => {
                    if let Some((bt, ..)) = best {
                        second = second.min(bt);
                    }
                    best = Some((t, i, p));
                }
            }
        }
    }
    (best, second)
}

/// Traces with the given backend; `None` when the device lacks it (the H100 has no ray
/// queries; lavapipe, where CI runs, has both).
fn trace(context: &Context, backend: TraceBackend, push: &TraceProbePush) -> Option<()> {
    if !context.trace_backends().contains(&backend) {
        eprintln!("this device has no {backend:?} backend; not traced with it");
        return None;
    }
    match backend {
        TraceBackend::Query => {
            let pipeline =
                ComputePipeline::<TraceProbePush>::new(context, ids::DIAGNOSTICS_TRACE_PROBE_QUERY, &[]).unwrap();
            common::run_probe(context, &pipeline, push, push.count);
        }
        TraceBackend::Pipeline => {
            let shaders = RayTracingShaders {
                raygen: ids::DIAGNOSTICS_TRACE_PROBE_RGEN,
                miss: &[ids::DIAGNOSTICS_TRACE_PROBE_RMISS],
                closest_hit: &[ids::DIAGNOSTICS_TRACE_PROBE_RCHIT],
                any_hit: None,
                specialization: &[],
            };
            let pipeline = RayTracingPipeline::<TraceProbePush>::new(context, "trace probe", &shaders).unwrap();
            context
                .run_once("trace probe (pipeline)", |commands| {
                    commands.trace_rays(&pipeline, push, push.count, 1);
                    Ok(())
                })
                .unwrap();
        }
        // The probe reads the driver's acceleration structures; our own traversal has its
        // tests in tests/trace_floor.rs and tests/software_trace.rs.
        TraceBackend::Software => return None,
    }
    Some(())
}

/// Both shapes of the acceleration structures: per mesh, and every instance merged.
fn check_scene(scene: &Scene, rays: usize, seed: u64) {
    for merge in [false, true] {
        check_shape(scene, rays, seed, merge);
    }
}

fn check_shape(scene: &Scene, rays: usize, seed: u64, merge: bool) {
    let gpu = common::gpu();
    let context = &gpu.context;
    let meshes = GpuMeshes::upload(context, scene).unwrap();
    let accel = SceneAccel::build(context, scene, &meshes, merge).unwrap();

    let mut rng = SmallRng::seed_from_u64(seed);
    let probe_rays: Vec<ProbeRay> = (0..rays)
        .map(|_| {
            let origin = Vec3::new(
                rng.random_range(-0.9..0.9),
                rng.random_range(-0.9..0.9),
                rng.random_range(-0.9..0.9),
            );
            let direction = loop {
                let d = Vec3::new(
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                    rng.random_range(-1.0..1.0),
                );
                if d.length_squared() > 0.01 && d.length_squared() <= 1.0 {
                    break d.normalize();
                }
            };
            ProbeRay {
                origin,
                t_min: 1e-4,
                direction,
                t_max: 100.0,
            }
        })
        .collect();
    let ray_buffer = Buffer::from_slice(context, "probe rays", &probe_rays, BufferUsage::STORAGE).unwrap();
    let hit_buffer =
        Buffer::gpu_storage(context, "probe hits", (rays * std::mem::size_of::<ProbeHit>()) as u64).unwrap();
    let push = TraceProbePush {
        top_level: accel.top_level.address(),
        rays: ray_buffer.address(),
        hits: hit_buffer.address(),
        count: rays as u32,
        pad0: 0,
    };
    let mut traced = 0;
    for backend in [TraceBackend::Query, TraceBackend::Pipeline] {
        if trace(context, backend, &push).is_none() {
            continue;
        }
        traced += 1;
        compare(
            scene,
            &probe_rays,
            &hit_buffer.read_back(context, rays).unwrap(),
            backend,
            merge,
        );
    }
    assert!(traced > 0, "no trace backend ran");
    drop((hit_buffer, ray_buffer, accel, meshes));
    gpu.finish();
}

/// `merge`: the merged bottom level has no custom index (0) to check.
fn compare(scene: &Scene, probe_rays: &[ProbeRay], hits: &[ProbeHit], backend: TraceBackend, merge: bool) {
    let rays = probe_rays.len();

    let mut disagreements = Vec::new();
    let mut hit_count = 0;
    for (ray, hit) in probe_rays.iter().zip(hits) {
        let (want, second) = cpu_trace(scene, ray);
        match want {
            None if hit.t < 0.0 => {}
            Some((t, instance, primitive)) if hit.t >= 0.0 => {
                hit_count += 1;
                let close = (f64::from(hit.t) - t).abs() <= 1e-4 * t.max(1.0);
                // Where two triangles are about equally near (a shared edge), either may win.
                let ambiguous = second - t < 1e-3;
                let same = hit.instance as usize == instance
                    && hit.primitive as usize == primitive
                    && hit.custom_index == if merge { 0 } else { scene.instances[instance].mesh };
                if !close || !(same || ambiguous) {
                    disagreements.push(format!(
                        "{ray:?}: GPU {hit:?}, CPU t={t} instance {instance} primitive {primitive}"
                    ));
                }
            }
            _ => disagreements.push(format!("{ray:?}: GPU {hit:?}, CPU {want:?}")),
        }
    }
    // Rays grazing an edge may fall either side of it in a watertight GPU test and in ours.
    assert!(
        disagreements.len() * 500 <= rays,
        "{backend:?} (merged: {merge}): {} of {rays} rays disagree: {:#?}",
        disagreements.len(),
        &disagreements[..disagreements.len().min(5)]
    );
    // The box is open towards the camera, so some rays leave it; most must hit.
    assert!(
        hit_count * 2 >= rays,
        "{backend:?}: only {hit_count} of {rays} rays hit: the comparison would say little"
    );
}

#[test]
fn cornell_box_rays_hit_what_the_cpu_finds() {
    check_scene(&load("cornell-box"), 2000, 1);
}

#[test]
fn cornell_glass_rays_hit_what_the_cpu_finds() {
    check_scene(&load("cornell-glass"), 1000, 2);
}

#[test]
fn shared_and_mirrored_instances_are_placed_by_their_transforms() {
    let mut scene = load("cornell-box");
    let small_box = scene.instances.iter().find(|i| i.node == "small-box").unwrap().clone();
    // The same mesh twice more: mirrored across x, and shrunk and lifted to mid-air.
    scene.instances.push(Instance {
        world_from_object: Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0)) * small_box.world_from_object,
        node: "mirrored".into(),
        ..small_box.clone()
    });
    scene.instances.push(Instance {
        world_from_object: Mat4::from_translation(Vec3::new(0.0, 0.5, 0.0))
            * Mat4::from_scale(Vec3::splat(0.5))
            * small_box.world_from_object,
        node: "floating".into(),
        ..small_box
    });
    assert!(scene.instances[scene.instances.len() - 2].flips_winding());
    check_scene(&scene, 2000, 3);
}
