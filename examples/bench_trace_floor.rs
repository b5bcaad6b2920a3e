//! How far a render is from the cost of its rays alone (issue 15's trace floor): renders a
//! scene, renders it again recording every ray its extend and connect kernels trace, traces
//! those rays again with trivial shaders (`trace::floor`), and prints the render's GPU time,
//! its extend and connect kernels' and the floor's.
//!
//!     cargo run --release --example bench_trace_floor -- SCENE.gltf [--res W H] [--spp N]
//!         [--max-depth D] [--integrator wavefront|bdpt] [--capacity RAYS] [--merge-instances] [--json]
//!
//! Defaults: 1024 x 1024, 64 spp (the logs hold every ray: 32 bytes each), depth 8, the
//! wavefront, room for 2^28 rays of each kind.

use std::path::PathBuf;

use wavetrace::gpu::{Context, ContextDesc};
use wavetrace::integrator::{IntegratorKind, RenderSettings, RenderStats, Renderer};
use wavetrace::scene::Scene;
use wavetrace::trace::floor::TraceFloor;

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
            scene if !scene.starts_with("--") && args.scene.as_os_str().is_empty() => args.scene = scene.into(),
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if args.scene.as_os_str().is_empty() {
        return Err(
            "usage: bench_trace_floor SCENE.gltf [--res W H] [--spp N] [--max-depth D] [--integrator \
                    wavefront|bdpt] [--capacity RAYS] [--merge-instances] [--json]"
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
