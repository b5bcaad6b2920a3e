//! What the viewer's pass structure costs: one offline render of N samples per pixel against
//! N / k progressive passes of k samples (`Renderer::render_pass`, as `wavetrace view` runs
//! them), on the same scene and settings. Prints Msamples/s of both (wall clock, and GPU time
//! from the timestamp scopes) and the wall time per pass outside the GPU, after a first render
//! that warms the driver up.
//!
//! cargo run --release --example bench_progressive -- SCENE WIDTH HEIGHT SPP PASS_SPP [INTEGRATOR]

use std::time::Instant;

use wavetrace::gpu::{Context, ContextDesc};
use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};
use wavetrace::scene::Scene;

fn main() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [scene, width, height, spp, pass_spp, rest @ ..] = args.as_slice() else {
        return Err("usage: bench_progressive SCENE WIDTH HEIGHT SPP PASS_SPP [wavefront|megakernel|bdpt]".into());
    };
    let number = |text: &str| text.parse::<u32>().map_err(|e| format!("{text}: {e}"));
    let (width, height, spp, pass_spp) = (number(width)?, number(height)?, number(spp)?, number(pass_spp)?);
    if pass_spp == 0 || spp % pass_spp != 0 {
        return Err("SPP must be a multiple of PASS_SPP".into());
    }
    let integrator = match rest.first().map(String::as_str) {
        None | Some("wavefront") => IntegratorKind::Wavefront,
        Some("megakernel") => IntegratorKind::Megakernel,
        Some("bdpt") => IntegratorKind::Bdpt,
        Some(other) => return Err(format!("unknown integrator {other}")),
    };
    let scene = Scene::load(std::path::Path::new(scene)).map_err(|e| e.to_string())?;
    let context = Context::new(&ContextDesc::default()).map_err(|e| e.to_string())?;
    let backend = context.trace_backends()[0];
    let settings = |spp| RenderSettings {
        integrator,
        ..RenderSettings::new(width, height, spp, 8, backend)
    };
    let samples = f64::from(width) * f64::from(height) * f64::from(spp);

    // A first render warms the driver's pipeline caches and the allocator for both timings.
    Renderer::new(&context, &scene, &settings(spp))
        .and_then(|mut warm| warm.render())
        .map_err(|e| e.to_string())?;
    let mut offline = Renderer::new(&context, &scene, &settings(spp)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let (image, stats) = offline.render_with_progress(|_| {}).map_err(|e| e.to_string())?;
    let offline_wall = started.elapsed().as_secs_f64();
    drop(offline);

    let mut progressive = Renderer::new(&context, &scene, &settings(pass_spp)).map_err(|e| e.to_string())?;
    let started = Instant::now();
    let mut gpu_seconds = 0.0;
    for pass in 0..spp / pass_spp {
        gpu_seconds += progressive
            .render_pass(pass * pass_spp)
            .map_err(|e| e.to_string())?
            .gpu_seconds;
    }
    let progressive_wall = started.elapsed().as_secs_f64();
    let passes_image = progressive.film().read_mean(&context, spp).map_err(|e| e.to_string())?;
    let passes = spp / pass_spp;
    println!(
        "{} on {}: {width}x{height}, {spp} spp, {integrator:?}",
        scene.source.display(),
        context.adapter().name
    );
    println!(
        "  offline: {:.1} Msamples/s wall, {:.1} GPU ({:.3} s)",
        samples / offline_wall / 1e6,
        samples / stats.gpu_seconds / 1e6,
        offline_wall
    );
    println!(
        "  {passes} passes of {pass_spp}: {:.1} Msamples/s wall, {:.1} GPU ({:.3} s; {:.3} ms a pass outside the GPU)",
        samples / progressive_wall / 1e6,
        samples / gpu_seconds / 1e6,
        progressive_wall,
        (progressive_wall - gpu_seconds) / f64::from(passes) * 1e3
    );
    println!(
        "  same image bit for bit: {}",
        if passes_image.pixels == image.pixels {
            "yes"
        } else {
            "NO"
        }
    );
    Ok(())
}
