//! A long render on lavapipe (validation on) whose memory must stay flat: the only test of its
//! binary, so that no other test's allocations share the process's resident size.

mod common;

use wavetrace::integrator::{IntegratorKind, RenderSettings, Renderer};

/// The process's resident memory, from /proc (Linux).
fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap();
    let pages: u64 = statm.split_whitespace().nth(1).unwrap().parse().unwrap();
    pages * 4096
}

#[test]
fn a_long_render_keeps_its_memory_flat() {
    // `WAVETRACE_SOAK_PASSES` passes of one sample per pixel with the megakernel (default
    // 10,000), as the viewer renders: each pass its own submissions, memory sampled between
    // passes. (One render of that many samples is a single launch of the megakernel on an
    // image this small.)
    let passes: u32 = std::env::var("WAVETRACE_SOAK_PASSES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let gpu = common::gpu();
    let scene = common::load_scene("cornell-box");
    let mut settings = RenderSettings::new(8, 8, 1, 4, gpu.context.trace_backends()[0]);
    settings.integrator = IntegratorKind::Megakernel;
    let mut renderer = Renderer::new(&gpu.context, &scene, &settings).unwrap();
    let mut samples: Vec<(f64, u64)> = Vec::new();
    for pass in 0..passes {
        renderer.render_pass(pass).unwrap();
        let share = f64::from(pass + 1) / f64::from(passes);
        if samples.last().is_none_or(|&(at, _)| share - at >= 0.02) {
            samples.push((share, resident_bytes()));
        }
    }
    let image = renderer.film().read_mean(&gpu.context, passes).unwrap();
    assert!(image.pixels.iter().flatten().all(|c| c.is_finite()));
    // No sample after the passes: reading the image back maps a staging block (64 MiB of
    // host-visible memory on the H100), once, which is not the render's.
    // Past the first tenth (allocations that happen once), resident memory may not grow.
    let settled: Vec<u64> = samples
        .iter()
        .filter(|(at, _)| *at >= 0.1)
        .map(|&(_, bytes)| bytes)
        .collect();
    let (first, last) = (settled[0], *settled.last().unwrap());
    let peak = *settled.iter().max().unwrap();
    println!(
        "soak: {passes} passes, {} samples, resident {:.1} -> {:.1} MiB (peak {:.1})",
        samples.len(),
        first as f64 / 1048576.0,
        last as f64 / 1048576.0,
        peak as f64 / 1048576.0
    );
    assert!(samples.len() >= 5, "memory was sampled {} times", samples.len());
    let curve: Vec<String> = samples
        .iter()
        .step_by(5)
        .map(|(at, bytes)| format!("{:.0}%: {:.1} MiB", at * 100.0, *bytes as f64 / 1048576.0))
        .collect();
    println!("soak: resident memory {}", curve.join(", "));
    assert!(
        last <= first + (4 << 20),
        "resident memory grew from {first} to {last} bytes over the second half: {curve:?}"
    );
    drop(renderer);
    gpu.finish();
}
