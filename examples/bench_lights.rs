//! The light tree's build time and precision.
//!
//! Build: scenes of 10^5, 10^6 and 10^7 emissive triangles (16 instances of one grid mesh),
//! each stage timed with timestamp queries, 5 warm-up and 30 timed runs, median (min-max):
//! flattening, the one-dispatch tree from triangles and the same tree from a weights buffer
//! (the bare prefix-sum tree), each with several workgroup layouts (`levels x width`), and the
//! down-sweep to a flat CDF; against the device's own copy
//! bandwidth (a compute-kernel copy of 1 GiB), measured in the same run.
//!
//! Precision: 10^7 weights log-uniform over 1e-6 to 1e3 (random order), tree and flat CDF
//! against float64: largest relative errors, lights that can never be chosen, and the share
//! of power they hold.
//!
//!     cargo run --release --example bench_lights [-- --json] [--precision] [--build]

use glam::{Mat4, Vec3, Vec4};
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use wavetrace::gpu::shaders::ids;
use wavetrace::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, ContextDesc, DispatchSize, GpuResult, MemoryLocation,
    Profiler,
};
use wavetrace::interface::CopyProbePush;
use wavetrace::lights::tree::{reference_tree, tree_probabilities};
use wavetrace::lights::{Leaves, LightSampler, LightSelection, LightTree, TreeLayout};
use wavetrace::scene::{GpuScene, Instance, Material, Mesh, Scene};

const WARM_UP: usize = 5;
const RUNS: usize = 30;
const INSTANCES: u32 = 16;
/// Layouts the tree build is timed with, as (levels per workgroup, workgroup width): for an
/// arity of 32, blocks of 1024 nodes held 16 to 2 a thread, and blocks of 32768 held 32 a
/// thread by 1024 threads. The default is (2, 256).
const LAYOUTS: [(u32, u32); 5] = [(2, 64), (2, 128), (2, 256), (2, 512), (3, 1024)];

/// `triangles` emissive triangles: INSTANCES grid meshes, each placed once, so that every
/// triangle's data comes from memory rather than from a cache shared between instances.
fn emissive_grid(triangles: u32) -> Scene {
    let per_instance = triangles / INSTANCES;
    let columns = (f64::from(per_instance / 2).sqrt().ceil() as u32).max(1);
    let rows = (per_instance / 2).div_ceil(columns);
    let mut positions = Vec::new();
    for y in 0..=rows {
        for x in 0..=columns {
            positions.push(Vec3::new(x as f32 / columns as f32, y as f32 / rows as f32, 0.0));
        }
    }
    let mut indices = Vec::new();
    'quads: for y in 0..rows {
        for x in 0..columns {
            for corners in [[0, 1, columns + 2], [0, columns + 2, columns + 1]] {
                if indices.len() as u32 / 3 == per_instance {
                    break 'quads;
                }
                let base = y * (columns + 1) + x;
                indices.extend(corners.map(|c| base + c));
            }
        }
    }
    Scene {
        source: "emissive grid".into(),
        meshes: (0..INSTANCES)
            .map(|i| Mesh {
                name: format!("grid {i}"),
                positions: positions.clone(),
                indices: indices.clone(),
                material: 0,
                ..Mesh::default()
            })
            .collect(),
        instances: (0..INSTANCES)
            .map(|i| Instance {
                mesh: i,
                world_from_object: Mat4::from_translation(Vec3::new(i as f32, 0.0, 0.0))
                    * Mat4::from_scale(Vec3::splat(1.0 + i as f32 * 0.1)),
                node: format!("grid {i}"),
            })
            .collect(),
        materials: vec![Material {
            name: "emitter".into(),
            base_color: Vec4::ZERO,
            metallic: 0.0,
            emission: Vec3::new(1.0, 0.8, 0.6),
            specular: 0.0,
            ..Material::default()
        }],
        textures: Vec::new(),
        lights: Vec::new(),
        camera: None,
        more_cameras: Vec::new(),
        warnings: Vec::new(),
    }
}

struct Timing {
    median: f64,
    min: f64,
    max: f64,
}

/// Microseconds per scope over RUNS replays of `commands`.
fn time(context: &Context, commands: &mut CommandBuffer, profiler: &Profiler) -> GpuResult<Vec<(String, Timing)>> {
    let mut samples: Vec<(String, Vec<f64>)> = Vec::new();
    for run in 0..WARM_UP + RUNS {
        commands.submit_and_wait(context)?;
        if run < WARM_UP {
            continue;
        }
        for (i, t) in profiler.resolve()?.into_iter().enumerate() {
            if samples.len() <= i {
                samples.push((t.name.clone(), Vec::new()));
            }
            samples[i].1.push(t.milliseconds * 1e3);
        }
    }
    Ok(samples
        .into_iter()
        .map(|(name, mut v)| {
            v.sort_by(f64::total_cmp);
            (
                name,
                Timing {
                    median: v[v.len() / 2],
                    min: v[0],
                    max: v[v.len() - 1],
                },
            )
        })
        .collect())
}

/// Memory bandwidth (read + write bytes per second) of copying 1 GiB: with
/// `vkCmdCopyBuffer`, and with a compute kernel (the floor compute kernels can reach).
fn copy_bandwidth(context: &Context) -> GpuResult<(f64, f64)> {
    let bytes = 1u64 << 30;
    let usage = BufferUsage::STORAGE;
    let a = Buffer::new(context, "copy source", bytes, usage, MemoryLocation::GpuOnly)?;
    let b = Buffer::new(context, "copy target", bytes, usage, MemoryLocation::GpuOnly)?;
    let kernel = ComputePipeline::<CopyProbePush>::new(context, ids::DIAGNOSTICS_COPY_PROBE, &[])?;
    let push = CopyProbePush {
        source: a.address(),
        target: b.address(),
        count: (bytes / 16) as u32,
        pad0: 0,
    };
    let mut profiler = Profiler::new(context, "copy", 2)?;
    let mut commands = CommandBuffer::new(context, "copy bandwidth")?;
    commands.begin(context)?;
    commands.fill_buffer(&a, 0, bytes, 1);
    commands.compute_barrier();
    profiler.reset(&mut commands);
    let scope = profiler.begin(&mut commands, "vkCmdCopyBuffer")?;
    commands.copy_buffer(&a, 0, &b, 0, bytes);
    profiler.end(&mut commands, scope)?;
    commands.compute_barrier();
    let scope = profiler.begin(&mut commands, "copy kernel")?;
    let groups = 4 * context.adapter().capabilities.max_compute_workgroup_count[0].min(1 << 12);
    commands.dispatch(
        &kernel,
        &push,
        DispatchSize {
            x: groups.min(65_535),
            y: 1,
        },
    );
    profiler.end(&mut commands, scope)?;
    commands.end()?;
    let timing = time(context, &mut commands, &profiler)?;
    let rate = |i: usize| 2.0 * bytes as f64 / (timing[i].1.median * 1e-6);
    Ok((rate(0), rate(1)))
}

fn build_benchmark(context: &Context, rows: &mut Vec<serde_json::Value>) -> GpuResult<()> {
    let (transfer, copy) = copy_bandwidth(context)?;
    println!(
        "copy bandwidth, 1 GiB, read + write: {:.0} GB/s by compute kernel (the floor below), {:.0} GB/s by vkCmdCopyBuffer",
        copy / 1e9,
        transfer / 1e9
    );
    let arity = context.adapter().capabilities.subgroup_size;
    // Bytes each stage must move at least, per light. Triangles: the map entry (8), three
    // indices (12), about half a new vertex (6, a grid shares its corners), the leaf (4) and
    // the levels above (4 / (arity - 1)). Weights: read 4, write 4 and the levels above.
    let above = 4.0 / f64::from(arity - 1);
    let stage_bytes = |stage: &str| match stage.split('/').next().unwrap_or(stage) {
        "flatten" => 8.0,
        "tree_triangles" => 8.0 + 12.0 + 6.0 + 4.0 + above,
        "tree_weights" => 8.0 + above,
        "cdf" => 4.0 + 4.0 + above,
        _ => 0.0,
    };
    println!(
        "{:<19} {:>9} {:>11} {:>11} {:>11} {:>9} {:>10}",
        "stage", "lights", "median µs", "min µs", "max µs", "GB/s", "x floor"
    );
    for count in [100_000u32, 1_000_000, 10_000_000] {
        let scene = emissive_grid(count);
        let gpu_scene = GpuScene::upload(context, &scene)?;
        let sampler = LightSampler::new(context, &scene, &gpu_scene, LightSelection::Cdf, false)?;
        let lights = sampler.light_count();
        let tree = sampler.tree().expect("the cdf selection has a tree");
        let weights = Buffer::gpu_storage(context, "bench weights", u64::from(lights) * 4)?;
        // Widths that would give a thread too many nodes for this arity are left out.
        let variants: Vec<(String, LightTree)> = LAYOUTS
            .iter()
            .filter_map(|&(block_levels, workgroup)| {
                let layout = TreeLayout {
                    block_levels: Some(block_levels),
                    workgroup: Some(workgroup),
                };
                LightTree::with_layout(context, lights, false, layout)
                    .ok()
                    .map(|tree| (format!("{block_levels}x{workgroup}"), tree))
            })
            .collect();
        let mut profiler = Profiler::new(context, "light build", 2 + 2 * LAYOUTS.len() as u32)?;
        let mut commands = CommandBuffer::new(context, "light build")?;
        commands.begin(context)?;
        commands.fill_buffer(&weights, 0, weights.size(), 0x3f80_0000);
        commands.compute_barrier();
        profiler.reset(&mut commands);
        let scope = profiler.begin(&mut commands, "flatten")?;
        sampler.flattening().record(&mut commands)?;
        profiler.end(&mut commands, scope)?;
        let triangles = Leaves::Triangles {
            scene: &gpu_scene,
            map: &sampler.flattening().map,
        };
        tree.record_build(&mut commands, &triangles)?;
        let scope = profiler.begin(&mut commands, "cdf")?;
        tree.record_cdf(&mut commands)?;
        profiler.end(&mut commands, scope)?;
        for (layout, variant) in &variants {
            let scope = profiler.begin(&mut commands, &format!("tree_triangles/{layout}"))?;
            variant.record_build(&mut commands, &triangles)?;
            profiler.end(&mut commands, scope)?;
            let scope = profiler.begin(&mut commands, &format!("tree_weights/{layout}"))?;
            variant.record_build(&mut commands, &Leaves::Weights(&weights))?;
            profiler.end(&mut commands, scope)?;
        }
        commands.end()?;
        for (stage, t) in time(context, &mut commands, &profiler)? {
            let bytes = stage_bytes(&stage) * f64::from(lights);
            let gbps = bytes / (t.median * 1e-6) / 1e9;
            let floor_us = bytes / copy * 1e6;
            println!(
                "{stage:<19} {lights:>9} {:>11.2} {:>11.2} {:>11.2} {gbps:>9.0} {:>10.2}",
                t.median,
                t.min,
                t.max,
                t.median / floor_us
            );
            rows.push(serde_json::json!({
                "stage": stage, "lights": lights, "median_us": t.median, "min_us": t.min, "max_us": t.max,
                "gb_per_s": gbps, "bytes_per_light": stage_bytes(&stage), "floor_us": floor_us,
                "copy_gb_per_s": copy / 1e9,
            }));
        }
    }
    Ok(())
}

fn precision_study(context: &Context, rows: &mut Vec<serde_json::Value>) -> GpuResult<()> {
    let count = 10_000_000u32;
    let mut rng = SmallRng::seed_from_u64(2026);
    let weights: Vec<f32> = (0..count).map(|_| 10f32.powf(rng.random_range(-6.0..3.0))).collect();
    let tree = LightTree::new(context, count, true)?;
    let buffer = Buffer::from_slice(context, "precision weights", &weights, BufferUsage::STORAGE)?;
    context.run_once("precision tree", |commands| {
        tree.record_build(commands, &Leaves::Weights(&buffer))?;
        tree.record_cdf(commands)
    })?;
    let shape = tree.shape();
    let nodes: Vec<f32> = tree.tree().read_back(context, shape.nodes() as usize)?;
    let cdf: Vec<f32> = tree
        .cdf()
        .expect("built with a cdf")
        .read_back(context, count as usize)?;
    let exact: Vec<f64> = weights.iter().map(|&w| f64::from(w)).collect();
    let total: f64 = exact.iter().sum();
    let exact_cdf: Vec<f64> = exact
        .iter()
        .scan(0.0, |running, w| {
            *running += w;
            Some(*running)
        })
        .collect();
    let exact_tree = reference_tree(&exact, shape.arity);
    let largest = |gpu: &[f32], exact: &[f64]| {
        gpu.iter()
            .zip(exact)
            .map(|(&g, &e)| (f64::from(g) - e).abs() / e)
            .fold(0.0f64, f64::max)
    };
    let tree_error = largest(&nodes, &exact_tree);
    let cdf_error = largest(&cdf, &exact_cdf);

    let cdf_total = f64::from(cdf[count as usize - 1]);
    let flat: Vec<f64> = (0..count as usize)
        .map(|i| {
            let before = if i > 0 { f64::from(cdf[i - 1]) } else { 0.0 };
            (f64::from(cdf[i]) - before) / cdf_total
        })
        .collect();
    let walked = tree_probabilities(&nodes, shape);
    println!(
        "precision: {count} weights 1e-6..1e3 (log-uniform), arity {}, {} levels; total {total:.4e}",
        shape.arity,
        shape.level_sizes.len()
    );
    println!("  largest relative error against float64: tree nodes {tree_error:.2e}, flat cdf entries {cdf_error:.2e}");
    println!(
        "  {:<10} {:>14} {:>16} {:>22} {:>22}",
        "sampler", "never chosen", "their power", "prob. error >1% (lights)", "largest prob. error"
    );
    for (name, probabilities) in [("tree walk", &walked), ("flat cdf", &flat)] {
        let mut lost = 0u64;
        let mut lost_power = 0.0;
        let mut off = 0u64;
        let mut worst = 0.0f64;
        for (i, &p) in probabilities.iter().enumerate() {
            let expected = exact[i] / total;
            if p <= 0.0 {
                lost += 1;
                lost_power += expected;
                continue;
            }
            let error = (p / expected - 1.0).abs();
            worst = worst.max(error);
            if error > 0.01 {
                off += 1;
            }
        }
        println!(
            "  {name:<10} {:>13.4}% {:>15.2e} {:>21.4}% {worst:>22.2e}",
            100.0 * lost as f64 / f64::from(count),
            lost_power,
            100.0 * off as f64 / f64::from(count)
        );
        rows.push(serde_json::json!({
            "precision": name, "lights": count, "never_chosen": lost, "never_chosen_power": lost_power,
            "probability_error_over_1pct": off, "largest_probability_error": worst,
            "tree_node_error": tree_error, "cdf_entry_error": cdf_error,
        }));
    }
    Ok(())
}

fn main() -> GpuResult<()> {
    let args: Vec<String> = std::env::args().collect();
    let json = args.iter().any(|a| a == "--json");
    let only_precision = args.iter().any(|a| a == "--precision");
    let only_build = args.iter().any(|a| a == "--build");
    let context = Context::new(&ContextDesc::default())?;
    let adapter = context.adapter();
    println!("device: {} ({})", adapter.name, adapter.driver);
    let mut rows = Vec::new();
    if !only_precision {
        build_benchmark(&context, &mut rows)?;
    }
    if !only_build {
        precision_study(&context, &mut rows)?;
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&rows).expect("plain JSON values"));
    }
    Ok(())
}
