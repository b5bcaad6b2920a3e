//! Times the GPU prefix sum with timestamp queries: median and spread of 30 runs after 5
//! warm-up runs, for 10^5, 10^6 and 10^7 elements of u32 and f32.
//!
//!     cargo run --release --example bench_scan [-- --json]

use wavetrace::gpu::{Buffer, CommandBuffer, Context, ContextDesc, GpuResult, Profiler};
use wavetrace::primitives::{PrefixSum, ScanElement};

const WARM_UP: usize = 5;
const RUNS: usize = 30;

fn main() -> GpuResult<()> {
    let json = std::env::args().any(|a| a == "--json");
    let context = Context::new(&ContextDesc::default())?;
    let adapter = context.adapter();
    println!("device: {} ({})", adapter.name, adapter.driver);
    println!(
        "{:<5} {:>10} {:>12} {:>12} {:>12} {:>10}",
        "type", "elements", "median µs", "min µs", "max µs", "GB/s"
    );
    let mut rows = Vec::new();
    for element in [ScanElement::U32, ScanElement::F32] {
        let scan = PrefixSum::new(&context, element)?;
        for count in [100_000u64, 1_000_000, 10_000_000] {
            let input = Buffer::gpu_storage(&context, "bench input", count * 4)?;
            let output = Buffer::gpu_storage(&context, "bench output", count * 4)?;
            let scratch = PrefixSum::new_scratch(&context, count)?;
            let mut profiler = Profiler::new(&context, "bench", 1)?;
            let mut commands = CommandBuffer::new(&context, "bench scan")?;
            commands.begin(&context)?;
            commands.fill_buffer(&input, 0, count * 4, 1);
            commands.compute_barrier();
            profiler.reset(&mut commands);
            let scope = profiler.begin(&mut commands, "prefix_sum")?;
            scan.record(&mut commands, &input, &output, count, &scratch)?;
            profiler.end(&mut commands, scope)?;
            commands.end()?;
            let mut times = Vec::new();
            for run in 0..WARM_UP + RUNS {
                commands.submit_and_wait(&context)?;
                if run >= WARM_UP {
                    times.push(profiler.resolve()?[0].milliseconds * 1e3);
                }
            }
            times.sort_by(f64::total_cmp);
            let median = times[RUNS / 2];
            // Bytes that must move at least: read the input once, write the output once.
            let gbps = (count * 8) as f64 / (median * 1e-6) / 1e9;
            let kind = format!("{element:?}").to_lowercase();
            println!(
                "{kind:<5} {count:>10} {median:>12.2} {:>12.2} {:>12.2} {gbps:>10.0}",
                times[0],
                times[RUNS - 1]
            );
            rows.push(serde_json::json!({
                "type": kind, "elements": count, "median_us": median, "min_us": times[0], "max_us": times[RUNS - 1], "gb_per_s": gbps
            }));
        }
    }
    if json {
        println!("{}", serde_json::to_string_pretty(&rows).expect("plain JSON values"));
    }
    Ok(())
}
