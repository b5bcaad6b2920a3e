//! The Vulkan layer's own promises: hangs become errors, validation errors are counted,
//! profiler scopes time what they bracket, images round-trip, devices are chosen as asked.

use crate::common;

use std::time::{Duration, Instant};

use wavetrace::gpu::{
    Buffer, BufferUsage, CommandBuffer, Context, ContextDesc, GpuError, Image, ImageFormat, MemoryLocation, Profiler,
    Validation,
};
use wavetrace::primitives::{PrefixSum, ScanElement};

#[test]
fn a_wait_that_never_completes_times_out_instead_of_hanging() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let started = Instant::now();
    let error = context
        .wait_for(context.unreached_ticket(), Duration::from_millis(50), "a pass")
        .unwrap_err();
    assert!(matches!(error, GpuError::Timeout { .. }), "{error}");
    assert!(error.to_string().contains("a pass"));
    assert!(started.elapsed() < Duration::from_secs(10));
    gpu.finish();
}

#[test]
fn validation_errors_are_counted() {
    // A test that can fail: misuse the API on purpose and check that the count moves.
    let gpu = common::gpu();
    let context = &gpu.context;
    let counts = context.message_counts();
    let scan = PrefixSum::new(context, ScanElement::U32).unwrap();
    let not_indirect = Buffer::gpu_storage(context, "args without INDIRECT usage", 16).unwrap();
    let pipeline = wavetrace::gpu::ComputePipeline::<wavetrace::interface::ScanPush>::new(
        context,
        wavetrace::gpu::shaders::ids::PRIMITIVES_SCAN_ADD_OFFSETS_U32,
        &[256, 4],
    )
    .unwrap();
    let mut commands = CommandBuffer::new(context, "misuse").unwrap();
    commands.begin(context).unwrap();
    commands.dispatch_indirect(&pipeline, &Default::default(), &not_indirect, 0);
    commands.end().unwrap();
    assert!(
        counts.errors() > 0,
        "recording an indirect dispatch from a non-indirect buffer must be reported"
    );
    drop((commands, pipeline, not_indirect, scan));
}

#[test]
fn profiler_times_nested_scopes_in_order() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let n = 300_000u64;
    let values = Buffer::from_slice(context, "values", &vec![1u32; n as usize], BufferUsage::STORAGE).unwrap();
    let scan = PrefixSum::new(context, ScanElement::U32).unwrap();
    let scratch = PrefixSum::new_scratch(context, n).unwrap();
    let mut profiler = Profiler::new(context, "test profiler", 8).unwrap();
    let mut commands = CommandBuffer::new(context, "profiled").unwrap();
    commands.begin(context).unwrap();
    profiler.reset(&mut commands);
    let outer = profiler.begin(&mut commands, "outer").unwrap();
    let inner = profiler.begin(&mut commands, "prefix_sum").unwrap();
    scan.record(&mut commands, &values, &values, n, &scratch).unwrap();
    profiler.end(&mut commands, inner).unwrap();
    profiler.end(&mut commands, outer).unwrap();
    commands.end().unwrap();
    commands.submit_and_wait(context).unwrap();

    let timings = profiler.resolve().unwrap();
    let names: Vec<_> = timings.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["outer", "prefix_sum"]);
    assert!(
        timings[1].milliseconds > 0.0,
        "a scan of {n} elements takes time: {timings:?}"
    );
    assert!(
        timings[0].milliseconds >= timings[1].milliseconds,
        "the outer scope contains the inner: {timings:?}"
    );
    drop((commands, profiler, scratch, scan, values));
    gpu.finish();
}

#[test]
fn profiler_rejects_scopes_that_do_not_nest() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut profiler = Profiler::new(context, "test profiler", 2).unwrap();
    let mut commands = CommandBuffer::new(context, "bad scopes").unwrap();
    commands.begin(context).unwrap();
    profiler.reset(&mut commands);
    let a = profiler.begin(&mut commands, "a").unwrap();
    let b = profiler.begin(&mut commands, "b").unwrap();
    assert!(profiler.begin(&mut commands, "c").is_err(), "capacity is 2 scopes");
    assert!(profiler.end(&mut commands, a).is_err(), "a ends while b is open");
    profiler.end(&mut commands, b).unwrap();
    commands.end().unwrap();
    drop((commands, profiler));
    gpu.finish();
}

#[test]
fn images_clear_and_copy_back() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let (width, height) = (37, 19);
    let image = Image::new(context, "test image", width, height, ImageFormat::Rgba32Float).unwrap();
    let buffer = Buffer::gpu_storage(context, "image copy", image.byte_size()).unwrap();
    let colour = [0.25f32, 0.5, 1.0, 2.0];
    context
        .run_once("clear and copy", |commands| {
            commands.prepare_general(&image);
            commands.clear_image(&image, colour);
            commands.compute_barrier();
            commands.copy_image_to_buffer(&image, &buffer);
            Ok(())
        })
        .unwrap();
    let pixels: Vec<[f32; 4]> = buffer.read_back(context, (width * height) as usize).unwrap();
    assert!(pixels.iter().all(|&p| p == colour));
    drop((image, buffer));
    gpu.finish();
}

#[test]
fn host_visible_buffers_check_their_bounds() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let mut buffer = Buffer::new(context, "mapped", 16, BufferUsage::STORAGE, MemoryLocation::CpuToGpu).unwrap();
    buffer.write(4, &[1u32, 2, 3]).unwrap();
    assert_eq!(buffer.read::<u32>(4, 3).unwrap(), [1, 2, 3]);
    let error = buffer.write(8, &[0u32; 3]).unwrap_err().to_string();
    assert!(error.contains("mapped") && error.contains("past its size"), "{error}");
    drop(buffer);
    gpu.finish();
}

#[test]
fn device_selection_by_name_and_index() {
    let error = Context::new(&ContextDesc {
        validation: Validation::Off,
        device: Some("no-such-gpu".into()),
        gpu_timeout: None,
        presentation: None,
    })
    .err()
    .expect("no device is called no-such-gpu");
    let text = error.to_string();
    assert!(
        matches!(error, GpuError::NoMatchingDevice { .. }) && text.contains("no-such-gpu"),
        "{text}"
    );

    let gpu = common::gpu();
    let chosen = gpu.context.adapter().clone();
    let by_index = Context::new(&ContextDesc {
        validation: Validation::On,
        device: Some(chosen.index.to_string()),
        gpu_timeout: None,
        presentation: None,
    })
    .unwrap();
    assert_eq!(by_index.adapter().name, chosen.name);
    let by_name_part = chosen.name.split_whitespace().next().unwrap().to_uppercase();
    let by_name = Context::new(&ContextDesc {
        validation: Validation::On,
        device: Some(by_name_part),
        gpu_timeout: None,
        presentation: None,
    })
    .unwrap();
    assert_eq!(by_name.adapter().index, chosen.index);
    drop((by_index, by_name));
    gpu.finish();
}

#[test]
fn a_pass_that_outlasts_the_timeout_is_an_error_naming_its_kernels_and_teardown_does_not_wait() {
    use wavetrace::gpu::{shaders::ids, ComputePipeline, DispatchSize};
    use wavetrace::interface::SpinProbePush;
    let timeout = Duration::from_millis(300);
    let gpu = common::gpu_with_timeout(Some(timeout));
    let context = &gpu.context;
    let target = Buffer::gpu_storage(context, "spin target", 4).unwrap();
    let spin = ComputePipeline::<SpinProbePush>::new(context, ids::DIAGNOSTICS_SPIN_PROBE, &[]).unwrap();
    let run = |iterations: u32, name: &str| {
        let push = SpinProbePush {
            target: target.address(),
            iterations,
            pad0: 0,
        };
        let started = Instant::now();
        let mut commands = CommandBuffer::new(context, name).unwrap();
        commands.begin(context).unwrap();
        commands.dispatch(&spin, &push, DispatchSize { x: 64, y: 1 });
        commands.end().unwrap();
        (commands.submit_and_wait(context), started.elapsed(), commands)
    };
    // Calibrated on this device: a spin that takes a twentieth of the timeout, then one that
    // outlasts it twentyfold (and still ends while the test runs, on any device). Each step
    // takes the fastest of three passes: the other tests share the CPU (lavapipe's threads),
    // and one slow pass must not stop the calibration at a spin too short to outlast anything.
    let mut iterations = 1u32 << 10;
    let calibrated = loop {
        let fastest = (0..3)
            .map(|_| {
                let (result, elapsed, _) = run(iterations, "calibration");
                result.unwrap();
                elapsed
            })
            .min()
            .unwrap();
        if fastest > timeout / 20 || iterations >= 1 << 30 {
            break fastest;
        }
        iterations *= 2;
    };
    // A long pass that ends before the timeout only says the calibration ran slow, so it grows;
    // one that ends after the timeout without an error is the failure this test looks for.
    let mut long_iterations = iterations.saturating_mul(400);
    let (result, waited, commands) = loop {
        let (result, elapsed, commands) = run(long_iterations, "long pass");
        if result.is_ok() && elapsed < timeout && long_iterations < u32::MAX {
            long_iterations = long_iterations.saturating_mul(8);
            continue;
        }
        break (result, elapsed, commands);
    };
    let error = result.unwrap_err();
    assert!(matches!(error, GpuError::Timeout { .. }), "{error}");
    let message = error.to_string();
    assert!(
        message.contains("long pass") && message.contains("spin_probe"),
        "the error names the pass and its kernel: {message}"
    );
    assert!(waited < timeout * 4, "the wait ends at the timeout");
    // Teardown after the hang must not wait for the GPU to finish.
    let teardown = Instant::now();
    drop(commands);
    drop(spin);
    drop(target);
    drop(gpu);
    // The long pass runs at least 400 calibration passes; teardown may take the bounded waits
    // (a second each) but not the pass.
    let spin = calibrated.mul_f64(f64::from(long_iterations) / f64::from(iterations));
    println!("spin of about {spin:?}; teardown took {:?}", teardown.elapsed());
    assert!(
        teardown.elapsed() < Duration::from_secs(3).max(spin / 4),
        "teardown took {:?} of a pass of about {spin:?}",
        teardown.elapsed()
    );
}

/// The shared libraries mapped into this process (/proc/self/maps).
fn mapped_libraries() -> std::collections::BTreeSet<String> {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .lines()
        .filter_map(|line| line.split_whitespace().nth(5))
        .filter(|path| path.contains(".so"))
        .map(str::to_string)
        .collect()
}

/// Run in a process of its own (this test binary again, with this test alone and
/// `WAVETRACE_LIBRARIES_CHILD` set), so that its first context is the process's first: the
/// libraries that context loaded (the loader, the driver, the validation layer) stay mapped
/// after it is gone, and fifty more contexts one after another each find the device. Without
/// the libraries held, NVIDIA's driver ran out of static TLS after about 40 contexts in one
/// process (src/gpu/loaded_libraries.rs).
#[test]
fn contexts_one_after_another_keep_the_drivers_loaded() {
    const CHILD: &str = "WAVETRACE_LIBRARIES_CHILD";
    if std::env::var_os(CHILD).is_none() {
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "gpu_layer::contexts_one_after_another_keep_the_drivers_loaded",
                "--nocapture",
                "--test-threads",
                "1",
            ])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success() && text.contains("1 passed"), "{text}");
        return;
    }
    let before = mapped_libraries();
    let gpu = common::gpu();
    let during = mapped_libraries();
    gpu.finish();
    let after = mapped_libraries();
    let loaded: Vec<&String> = during.difference(&before).collect();
    assert!(!loaded.is_empty(), "a first context loads the Vulkan libraries");
    let unloaded: Vec<&&String> = loaded.iter().filter(|library| !after.contains(**library)).collect();
    assert!(unloaded.is_empty(), "unloaded with the context: {unloaded:?}");
    assert!(wavetrace::gpu::libraries_held(true));
    for _ in 0..50 {
        common::gpu().finish();
    }
    assert_eq!(mapped_libraries(), after, "later contexts load nothing new for good");
}
