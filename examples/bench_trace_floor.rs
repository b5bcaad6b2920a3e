//! How far a render is from the cost of its rays alone (issue 15's trace floor): renders a
//! scene, renders it again recording every ray its extend and connect kernels trace, traces
//! those rays again with trivial shaders (`trace::floor`), and prints the render's GPU time,
//! its extend and connect kernels' and the floor's.
//!
//!     cargo run --release --example bench_trace_floor -- SCENE.gltf [--res W H] [--spp N]
//!         [--max-depth D] [--integrator wavefront|bdpt] [--capacity RAYS] [--merge-instances] [--json]
//!         [--orders CHUNK] [--dump-rays DIR] [--path-runs] [--software] [--software-sweep]
//!
//! Defaults: 1024 x 1024, 64 spp (the logs hold every ray: 32 bytes each), depth 8, the
//! wavefront, room for 2^28 rays of each kind. `--dump-rays` writes both logs under DIR, in
//! recorded order and in a megakernel's pixel-major order (`recorded/`, `pixel-major/`:
//! `extension.rays`, `shadow.rays` of `ProbeRay`s, 32 bytes each, little-endian), each with the
//! floor's figures in that order (`floor.json`), so that another renderer can trace the same
//! rays in the same orders (`tools/bench/peer/mitsuba_trace_floor.py`). `--path-runs` (the path
//! tracer only) traces the extension rays again as a megakernel would: a path a thread, its
//! segments one after the other, against the same rays one a thread in the same order.
//! `--software` traces both logs again with our own traversal of a hierarchy built here
//! (`trace::software_bvh`) against the driver's, each the fastest of warm runs (with
//! `--path-runs`, the runs too); `--software-sweep` also times trees of other leaf sizes and
//! node costs.

use std::path::PathBuf;

use wavetrace::gpu::{Context, ContextDesc};
use wavetrace::integrator::{IntegratorKind, RenderSettings, RenderStats, Renderer};
use wavetrace::interface::ProbeRay;
use wavetrace::scene::Scene;
use wavetrace::trace::floor::{FloorTrace, RayCounts, RayLog, RayTag, SoftwareFloor, TraceFloor};
use wavetrace::trace::software_bvh::{BuildOptions, SoftwareBvh};

struct Args {
    scene: PathBuf,
    width: u32,
    height: u32,
    spp: u32,
    max_depth: u32,
    integrator: IntegratorKind,
    capacity: u32,
    merge_instances: bool,
    json: bool,
    /// Trace each log again in finer orders than the render's ray sort, sorted within runs of
    /// this many rays (the size of a launch), to see what ray coherence could buy.
    orders_chunk: Option<usize>,
    dump_rays: Option<PathBuf>,
    /// Trace the extension rays again a path a thread, each thread its path's rays in turn.
    path_runs: bool,
    /// Trace both logs again with our own traversal of a software hierarchy.
    software: bool,
    /// With `software`, also trees built with other leaf sizes and node costs.
    software_sweep: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        scene: PathBuf::new(),
        width: 1024,
        height: 1024,
        spp: 64,
        max_depth: 8,
        integrator: IntegratorKind::Wavefront,
        capacity: 1 << 28,
        merge_instances: false,
        json: false,
        orders_chunk: None,
        dump_rays: None,
        path_runs: false,
        software: false,
        software_sweep: false,
    };
    let mut words = std::env::args().skip(1);
    let number = |word: Option<String>, flag: &str| -> Result<u32, String> {
        word.ok_or(format!("{flag} needs a value"))?
            .parse()
            .map_err(|e| format!("{flag}: {e}"))
    };
    while let Some(word) = words.next() {
        match word.as_str() {
            "--res" => {
                args.width = number(words.next(), "--res")?;
                args.height = number(words.next(), "--res")?;
            }
            "--spp" => args.spp = number(words.next(), "--spp")?,
            "--max-depth" => args.max_depth = number(words.next(), "--max-depth")?,
            "--capacity" => args.capacity = number(words.next(), "--capacity")?,
            "--integrator" => {
                args.integrator = match words.next().as_deref() {
                    Some("wavefront") => IntegratorKind::Wavefront,
                    Some("bdpt") => IntegratorKind::Bdpt,
                    other => return Err(format!("--integrator wavefront|bdpt, not {other:?}")),
                }
            }
            "--json" => args.json = true,
            "--merge-instances" => args.merge_instances = true,
            "--orders" => args.orders_chunk = Some(number(words.next(), "--orders")? as usize),
            "--path-runs" => args.path_runs = true,
            "--software" => args.software = true,
            "--software-sweep" => {
                args.software = true;
                args.software_sweep = true;
            }
            "--dump-rays" => args.dump_rays = Some(words.next().ok_or("--dump-rays needs a directory")?.into()),
            scene if !scene.starts_with("--") && args.scene.as_os_str().is_empty() => args.scene = scene.into(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.scene.as_os_str().is_empty() {
        return Err(
            "usage: bench_trace_floor SCENE.gltf [--res W H] [--spp N] [--max-depth D] [--integrator \
                    wavefront|bdpt] [--capacity RAYS] [--merge-instances] [--json] [--orders CHUNK] [--dump-rays DIR] [--path-runs] [--software] [--software-sweep]"
                .into(),
        );
    }
    Ok(args)
}

fn kernel_ms(stats: &RenderStats, name: &str) -> f64 {
    stats
        .kernels
        .iter()
        .filter(|k| k.name == name)
        .map(|k| k.milliseconds)
        .sum()
}

fn main() -> Result<(), String> {
    let args = parse_args()?;
    let scene = Scene::load(&args.scene).map_err(|e| e.to_string())?;
    let context = Context::new(&ContextDesc::default()).map_err(|e| e.to_string())?;
    let backend = *context
        .trace_backends()
        .first()
        .ok_or("the device has no trace backend")?;
    let settings = RenderSettings {
        integrator: args.integrator,
        merge_instances: args.merge_instances,
        ..RenderSettings::new(args.width, args.height, args.spp, args.max_depth, backend)
    };
    let render = |settings: &RenderSettings| -> Result<(Renderer, RenderStats), String> {
        let mut renderer = Renderer::new(&context, &scene, settings).map_err(|e| e.to_string())?;
        let (_, stats) = renderer.render_with_progress(|_| {}).map_err(|e| e.to_string())?;
        Ok((renderer, stats))
    };
    // The render as it runs, then again recording its rays (the recording's atomics cost time).
    let (_, stats) = render(&settings)?;
    let (recorded, recorded_stats) = render(&RenderSettings {
        ray_log_capacity: args.capacity,
        ..settings.clone()
    })?;
    let log = recorded.ray_log().ok_or("no ray log")?;
    let counts = log.counts(&context).map_err(|e| e.to_string())?;
    if counts.extension > log.capacity() || counts.shadow > log.capacity() {
        return Err(format!(
            "{} extension and {} shadow rays, more than the logs' {}: fewer samples, or a larger --capacity",
            counts.extension,
            counts.shadow,
            log.capacity()
        ));
    }
    let floor = TraceFloor::new(&context, backend).map_err(|e| e.to_string())?;
    let top_level = recorded.top_level_address();
    let trace = |shadow: bool, count: u32| floor.trace(&context, top_level, log.rays(shadow), count, shadow);
    let extension = trace(false, counts.extension).map_err(|e| e.to_string())?;
    let shadow = trace(true, counts.shadow).map_err(|e| e.to_string())?;

    let render_ms = stats.gpu_seconds * 1e3;
    let floor_ms = extension.milliseconds + shadow.milliseconds;
    let (extend_ms, connect_ms) = (kernel_ms(&stats, "extend"), kernel_ms(&stats, "connect"));
    println!(
        "{} {}x{} {} spp depth {} {:?}{} on {}",
        args.scene.display(),
        args.width,
        args.height,
        args.spp,
        args.max_depth,
        args.integrator,
        if args.merge_instances { ", instances merged" } else { "" },
        context.adapter().name
    );
    println!(
        "render {render_ms:.1} ms GPU ({:.1} Msamples/s; recording: {:.1} ms); its extend {extend_ms:.1} ms, connect \
         {connect_ms:.1} ms",
        stats.samples_per_second / 1e6,
        recorded_stats.gpu_seconds * 1e3
    );
    println!(
        "floor {floor_ms:.1} ms: {} extension rays {:.1} ms ({} hit), {} shadow rays {:.1} ms ({} blocked); render / \
         floor {:.2}x",
        counts.extension,
        extension.milliseconds,
        extension.hits,
        counts.shadow,
        shadow.milliseconds,
        shadow.hits,
        render_ms / floor_ms
    );
    if let Some(dir) = &args.dump_rays {
        let trace = |shadow: bool, count: u32| trace(shadow, count).map_err(|e| e.to_string());
        dump_rays(dir, &context, log, counts, (args.spp, args.integrator), &trace)?;
    }
    let software = if args.software {
        let driver = |shadow, count| trace(shadow, count).map_err(|e| e.to_string());
        Some(compare_software(
            &context,
            &scene,
            &driver,
            log,
            counts,
            args.software_sweep,
        )?)
    } else {
        None
    };
    if args.path_runs {
        if args.integrator != IntegratorKind::Wavefront {
            return Err("--path-runs needs the path tracer's rays (--integrator wavefront)".into());
        }
        let trace_fastest = |threads: u32, per_thread: u32| -> Result<FloorTrace, String> {
            fastest_of_warm_runs(&|| {
                floor
                    .trace_runs(&context, top_level, log.rays(false), threads, per_thread, false)
                    .map_err(|e| e.to_string())
            })
        };
        let rays = log.read(&context, false, counts.extension).map_err(|e| e.to_string())?;
        let tags = log
            .read_tags(&context, false, counts.extension)
            .map_err(|e| e.to_string())?;
        let runs = path_runs(&rays, &tags, args.max_depth, false);
        let sample_runs = path_runs(&rays, &tags, args.max_depth, true);
        if runs.len() > log.capacity() as usize {
            return Err(format!(
                "{} rays in runs, more than the log's {}: a larger --capacity",
                runs.len(),
                log.capacity()
            ));
        }
        let dense = |runs: &[ProbeRay]| -> Vec<ProbeRay> { runs.iter().copied().filter(|r| r.t_max > 0.0).collect() };
        for (name, ordered, per_thread) in [
            ("recorded, a ray a thread", rays.clone(), 1),
            (
                "pixel-major, a ray a thread",
                pixel_major(&rays, &tags, args.spp, false),
                1,
            ),
            ("path-major, a ray a thread", dense(&runs), 1),
            ("path-major, a path a thread", runs.clone(), args.max_depth),
            ("sample-major paths, a ray a thread", dense(&sample_runs), 1),
            (
                "sample-major paths, a path a thread",
                sample_runs.clone(),
                args.max_depth,
            ),
        ] {
            log.rays(false).upload(&context, &ordered).map_err(|e| e.to_string())?;
            let threads = ordered.len() as u32 / per_thread;
            let traced = trace_fastest(threads, per_thread)?;
            println!(
                "extension rays {name}: {:.2} ms ({} hit)",
                traced.milliseconds, traced.hits
            );
            if let Some(software) = &software {
                let ours = fastest_of_warm_runs(&|| {
                    software
                        .trace_runs(&context, log.rays(false), threads, per_thread, false, None)
                        .map_err(|e| e.to_string())
                })?;
                println!(
                    "extension rays {name}, our traversal: {:.2} ms ({} hit)",
                    ours.milliseconds, ours.hits
                );
            }
        }
    }
    if let Some(chunk) = args.orders_chunk {
        for shadow in [false, true] {
            let count = if shadow { counts.shadow } else { counts.extension };
            let recorded_rays: Vec<ProbeRay> = log.read(&context, shadow, count).map_err(|e| e.to_string())?;
            for order in ORDERS {
                let rays = reordered(&recorded_rays, chunk, order);
                log.rays(shadow).upload(&context, &rays).map_err(|e| e.to_string())?;
                let traced = fastest_of_warm_runs(&|| trace(shadow, count).map_err(|e| e.to_string()))?;
                println!(
                    "order {:>14} {} rays, runs of {chunk}: {:.1} ms ({} hit)",
                    order.name(),
                    if shadow { "shadow" } else { "extension" },
                    traced.milliseconds,
                    traced.hits
                );
            }
        }
    }
    if args.json {
        let report = serde_json::json!({
            "scene": args.scene.display().to_string(), "spp": args.spp, "max_depth": args.max_depth,
            "render_ms": render_ms, "extend_ms": extend_ms, "connect_ms": connect_ms,
            "extension_rays": counts.extension, "shadow_rays": counts.shadow,
            "floor_extension_ms": extension.milliseconds, "floor_shadow_ms": shadow.milliseconds,
            "floor_ms": floor_ms, "render_over_floor": render_ms / floor_ms,
        });
        println!("{}", serde_json::to_string_pretty(&report).expect("plain JSON values"));
    }
    Ok(())
}

/// Both logs traced by the driver and by our own traversal of a software hierarchy of the
/// scene's triangles in world space, each the fastest of warm runs; with `sweep`, also trees
/// of other leaf sizes and node costs. Gives the default tree's floor.
fn compare_software(
    context: &Context,
    scene: &Scene,
    driver: &dyn Fn(bool, u32) -> Result<FloorTrace, String>,
    log: &RayLog,
    counts: RayCounts,
    sweep: bool,
) -> Result<SoftwareFloor, String> {
    let triangles = scene.world_triangles();
    let logs = [(false, counts.extension), (true, counts.shadow)];
    let driver_traces: Vec<FloorTrace> = logs
        .into_iter()
        .map(|(shadow, count)| fastest_of_warm_runs(&|| driver(shadow, count)))
        .collect::<Result<_, _>>()?;
    let default = BuildOptions::default();
    let mut builds = vec![default];
    if sweep {
        for max_leaf in [4, 8, 16] {
            for node_cost in [1.0, 2.0, 3.0, 4.0] {
                if (max_leaf, node_cost) != (default.max_leaf, default.node_cost) {
                    builds.push(BuildOptions {
                        node_cost,
                        max_leaf,
                        ..default
                    });
                }
            }
        }
    }
    let mut kept = None;
    for options in builds {
        let started = std::time::Instant::now();
        let bvh = SoftwareBvh::build_with(&triangles, options).map_err(|e| e.to_string())?;
        println!(
            "software hierarchy ({options:?}): {} triangles, {} nodes, depth {}, built in {:.2} s on the CPU",
            bvh.triangles.len(),
            bvh.nodes.len(),
            bvh.depth,
            started.elapsed().as_secs_f64()
        );
        let software = SoftwareFloor::new(context, &bvh).map_err(|e| e.to_string())?;
        let mut totals = [0.0f64; 2];
        for ((shadow, count), theirs) in logs.into_iter().zip(&driver_traces) {
            let ours = fastest_of_warm_runs(&|| {
                software
                    .trace(context, log.rays(shadow), count, shadow, None)
                    .map_err(|e| e.to_string())
            })?;
            totals[0] += theirs.milliseconds;
            totals[1] += ours.milliseconds;
            println!(
                "{} rays: driver {:.2} ms ({} hit), ours {:.2} ms ({} hit): driver / ours {:.3}x",
                if shadow { "shadow" } else { "extension" },
                theirs.milliseconds,
                theirs.hits,
                ours.milliseconds,
                ours.hits,
                theirs.milliseconds / ours.milliseconds
            );
        }
        println!(
            "software floor {:.2} ms against the driver's {:.2} ms: driver / ours {:.3}x",
            totals[1],
            totals[0],
            totals[0] / totals[1]
        );
        kept.get_or_insert(software);
    }
    Ok(kept.expect("the default build is first"))
}

/// The fastest of repeated traces, repeated until they have kept the GPU busy for half a second
/// (at most 400 times): the host's sorts and file writes between traces leave the GPU idle long
/// enough to lower its clocks, and a trace of a few milliseconds does not raise them again.
fn fastest_of_warm_runs(trace: &dyn Fn() -> Result<FloorTrace, String>) -> Result<FloorTrace, String> {
    let mut fastest = trace()?;
    let mut busy_ms = fastest.milliseconds;
    for _ in 0..400 {
        if busy_ms >= 500.0 {
            break;
        }
        let again = trace()?;
        busy_ms += again.milliseconds;
        fastest.milliseconds = fastest.milliseconds.min(again.milliseconds);
    }
    Ok(fastest)
}

/// Writes both logs under `dir/recorded`, and again in the order a megakernel that gives a
/// pixel's samples to neighbouring lanes would trace them (`dir/pixel-major`, as Mitsuba 3
/// lays out its lanes: lane = pixel x spp + sample, each warp of 32 lanes bounce by bounce),
/// each with what the floor measured of it in that order. A BDPT sample's light and camera
/// subpaths share its pixel, sample and segment numbers, so BDPT's rays are written in
/// recorded order only.
fn dump_rays(
    dir: &std::path::Path,
    context: &Context,
    log: &RayLog,
    counts: RayCounts,
    (spp, integrator): (u32, IntegratorKind),
    trace: &dyn Fn(bool, u32) -> Result<FloorTrace, String>,
) -> Result<(), String> {
    let failed = |what: &std::path::Path, e: std::io::Error| format!("{}: {e}", what.display());
    let gpu = |e: wavetrace::gpu::GpuError| e.to_string();
    let mut logs = Vec::new();
    for (shadow, count) in [(false, counts.extension), (true, counts.shadow)] {
        let rays = log.read(context, shadow, count).map_err(gpu)?;
        let tags = log.read_tags(context, shadow, count).map_err(gpu)?;
        logs.push((shadow, count, rays, tags));
    }
    let orders: &[&str] = if integrator == IntegratorKind::Wavefront {
        &["recorded", "pixel-major"]
    } else {
        &["recorded"]
    };
    for &order in orders {
        let out = dir.join(order);
        std::fs::create_dir_all(&out).map_err(|e| failed(&out, e))?;
        let mut report = serde_json::Map::new();
        for (shadow, count, rays, tags) in &logs {
            let rays = if order == "recorded" {
                rays.clone()
            } else {
                pixel_major(rays, tags, spp, *shadow)
            };
            log.rays(*shadow).upload(context, &rays).map_err(gpu)?;
            let traced = fastest_of_warm_runs(&|| trace(*shadow, *count))?;
            let kind = if *shadow { "shadow" } else { "extension" };
            let path = out.join(format!("{kind}.rays"));
            std::fs::write(&path, bytemuck::cast_slice::<ProbeRay, u8>(&rays)).map_err(|e| failed(&path, e))?;
            report.insert(format!("{kind}_rays"), (*count).into());
            report.insert(
                format!("{kind}_{}", if *shadow { "blocked" } else { "hits" }),
                traced.hits.into(),
            );
            report.insert(format!("{kind}_ms"), traced.milliseconds.into());
            println!(
                "order {order:>11} {kind} rays: {:.2} ms ({} hit)",
                traced.milliseconds, traced.hits
            );
        }
        report.insert(
            "rays_per_launch".into(),
            wavetrace::trace::floor::RAYS_PER_LAUNCH.into(),
        );
        let path = out.join("floor.json");
        let text = serde_json::to_string_pretty(&serde_json::Value::Object(report)).expect("plain JSON values");
        std::fs::write(&path, text).map_err(|e| failed(&path, e))?;
    }
    Ok(())
}

/// The rays in the order of a megakernel whose lane `pixel x spp + sample` traces that sample's
/// path: warp by warp (32 lanes), and within a warp bounce by bounce. Shadow rays keep no sample
/// or bounce, so they go warp by warp in recorded order.
fn pixel_major(rays: &[ProbeRay], tags: &[RayTag], spp: u32, shadow: bool) -> Vec<ProbeRay> {
    let key = |tag: &RayTag| -> u64 {
        let sample = if shadow {
            0
        } else {
            u64::from(tag.sample()) % u64::from(spp)
        };
        let bounce = if shadow { 0 } else { u64::from(tag.bounce()) };
        let lane = u64::from(tag.pixel) * u64::from(spp) + sample;
        (lane >> 5) << 16 | bounce << 8 | (lane & 31)
    };
    let mut order: Vec<usize> = (0..rays.len()).collect();
    order.sort_by_cached_key(|&i| key(&tags[i]));
    order.into_iter().map(|i| rays[i]).collect()
}

/// The extension rays a path a run of `max_depth`, each run its path's segments in order, then
/// gaps (`t_max` -1). Paths in pixel-major order (pixel, then sample: a pixel's samples side by
/// side, as Mitsuba's lanes) or sample-major (sample, then pixel: one sample of neighbouring
/// pixels side by side, as our megakernel's launch).
fn path_runs(rays: &[ProbeRay], tags: &[RayTag], max_depth: u32, sample_major: bool) -> Vec<ProbeRay> {
    let path = |i: usize| {
        let sample = tags[i].sample();
        if sample_major {
            (sample, tags[i].pixel)
        } else {
            (tags[i].pixel, sample)
        }
    };
    let mut order: Vec<usize> = (0..rays.len()).collect();
    order.sort_by_key(|&i| (path(i), tags[i].bounce()));
    let gap = ProbeRay { t_max: -1.0, ..rays[0] };
    let mut runs = Vec::new();
    let mut at = 0;
    while at < order.len() {
        let start = runs.len();
        let first = order[at];
        while at < order.len() && path(order[at]) == path(first) {
            runs.push(rays[order[at]]);
            at += 1;
        }
        runs.resize(start + max_depth as usize, gap);
    }
    runs
}

/// Orders of a ray log, coarsest first: what a finer ray sort than the render's would give.
#[derive(Clone, Copy)]
enum Order {
    Recorded,
    /// Shuffled within each run: no order at all.
    Shuffled,
    /// Direction octant, then the origin's cell in a grid of `1 << origin` cells an axis.
    OctantThenOrigin {
        origin: u32,
    },
    /// The direction's cell in a grid of `1 << direction` cells an axis over [-1, 1]^3, then
    /// the origin's cell.
    DirectionThenOrigin {
        direction: u32,
        origin: u32,
    },
    /// The direction's cell in an octahedral map of `1 << direction` cells a side.
    Octahedral {
        direction: u32,
    },
}

const ORDERS: [Order; 10] = [
    Order::Recorded,
    Order::Shuffled,
    Order::OctantThenOrigin { origin: 2 },
    Order::OctantThenOrigin { origin: 5 },
    Order::DirectionThenOrigin {
        direction: 3,
        origin: 0,
    },
    Order::Octahedral { direction: 4 },
    Order::DirectionThenOrigin {
        direction: 2,
        origin: 2,
    },
    Order::DirectionThenOrigin {
        direction: 2,
        origin: 5,
    },
    Order::DirectionThenOrigin {
        direction: 3,
        origin: 5,
    },
    Order::DirectionThenOrigin {
        direction: 3,
        origin: 7,
    },
];

impl Order {
    fn name(self) -> String {
        match self {
            Order::Recorded => "recorded".into(),
            Order::Shuffled => "shuffled".into(),
            Order::OctantThenOrigin { origin } => format!("octant-o{origin}"),
            Order::DirectionThenOrigin { direction, origin } => format!("d{direction}-o{origin}"),
            Order::Octahedral { direction } => format!("oct{}", 1 << direction),
        }
    }
}

fn morton(cell: [u32; 3], bits: u32) -> u64 {
    (0..bits).fold(0u64, |code, bit| {
        (0..3).fold(code, |code, axis| {
            code | (u64::from(cell[axis] >> bit & 1) << (3 * bit + axis as u32))
        })
    })
}

fn octahedral_cell(direction: glam::Vec3, bits: u32) -> u64 {
    let d = direction / (direction.x.abs() + direction.y.abs() + direction.z.abs()).max(1e-30);
    let (x, y) = if d.z >= 0.0 {
        (d.x, d.y)
    } else {
        ((1.0 - d.y.abs()) * d.x.signum(), (1.0 - d.x.abs()) * d.y.signum())
    };
    let cells = (1u32 << bits) as f32;
    let cell = |v: f32| ((v + 1.0) * 0.5 * cells).clamp(0.0, cells - 1.0) as u64;
    cell(y) << bits | cell(x)
}

/// Fisher-Yates with a xorshift generator: the same shuffle for the same run every time.
fn shuffle(rays: &mut [ProbeRay], run: u64) {
    let mut state = 0x9e37_79b9_7f4a_7c15u64 ^ run.wrapping_mul(0xbf58_476d_1ce4_e5b9) | 1;
    for i in (1..rays.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        rays.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

fn reordered(rays: &[ProbeRay], chunk: usize, order: Order) -> Vec<ProbeRay> {
    let (low, high) = rays.iter().fold(
        (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN)),
        |(low, high), ray| (low.min(ray.origin), high.max(ray.origin)),
    );
    let extent = (high - low).max(glam::Vec3::splat(1e-6));
    let origin_cell = |ray: &ProbeRay, bits: u32| -> u64 {
        let cells = (1u32 << bits) as f32;
        let cell = ((ray.origin - low) / extent * cells).clamp(glam::Vec3::ZERO, glam::Vec3::splat(cells - 1.0));
        morton([cell.x as u32, cell.y as u32, cell.z as u32], bits)
    };
    let direction_cell = |ray: &ProbeRay, bits: u32| -> u64 {
        let cells = (1u32 << bits) as f32;
        let cell = ((ray.direction.normalize_or_zero() + 1.0) * 0.5 * cells)
            .clamp(glam::Vec3::ZERO, glam::Vec3::splat(cells - 1.0));
        morton([cell.x as u32, cell.y as u32, cell.z as u32], bits)
    };
    let octant = |ray: &ProbeRay| -> u64 {
        u64::from(ray.direction.x < 0.0) | u64::from(ray.direction.y < 0.0) << 1 | u64::from(ray.direction.z < 0.0) << 2
    };
    let key = |ray: &ProbeRay| -> u64 {
        match order {
            Order::Recorded | Order::Shuffled => 0,
            Order::OctantThenOrigin { origin } => octant(ray) << (3 * origin) | origin_cell(ray, origin),
            Order::DirectionThenOrigin { direction, origin } => {
                direction_cell(ray, direction) << (3 * origin) | origin_cell(ray, origin)
            }
            Order::Octahedral { direction } => octahedral_cell(ray.direction, direction),
        }
    };
    let mut out = rays.to_vec();
    if matches!(order, Order::Recorded) {
        return out;
    }
    // Shuffled before the (stable) sort, so that rays of one key are in no order rather than in
    // the order of the render's own ray sort.
    std::thread::scope(|scope| {
        for (run, piece) in out.chunks_mut(chunk.max(1)).enumerate() {
            scope.spawn(move || {
                shuffle(piece, run as u64);
                piece.sort_by_cached_key(key);
            });
        }
    });
    out
}
