//! The command line: parses arguments, calls the library, prints results.
#![forbid(unsafe_code)]

use std::process::ExitCode;

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use wavetrace::environment::{Environment, EnvironmentMap};
use wavetrace::film::{Display, ToneMap};
use wavetrace::gpu::RenderDoc;
use wavetrace::gpu::{Context, ContextDesc, TraceBackend};
use wavetrace::integrator::Renderer;
use wavetrace::integrator::{
    Crop, IntegratorKind, MltSettings, MltStart, RenderSettings, RenderStats, Sampler, Schedule, SplatFilm,
};
use wavetrace::lights::{CullBuild, CullingFormat, CullingSettings, LightSelection};
use wavetrace::scale::{render_split, Chunks, Fingerprint, Part, PartialFilm};
use wavetrace::scene::{ImportOptions, Scene};

#[derive(Parser)]
#[command(
    name = "wavetrace",
    version,
    about = "A Vulkan wavefront path tracer with hardware ray tracing"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List Vulkan devices, their trace backends and the limits that matter to wavetrace.
    Info {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Render a glTF scene to EXR (linear) or PNG (sRGB).
    Render(RenderArgs),
    /// Open a window that shows the scene converging, pass after pass, with a camera to move
    /// (docs/VIEWER.md; H in the window lists the keys).
    View(ViewArgs),
    /// Add partial films (`render --samples`, `--tile`, `--partial`) exactly: the image (.exr,
    /// .png) when every pixel has the same samples, or with --partial a partial film to merge
    /// further. Parts of another scene or other settings, or holding a sample twice, are refused.
    Merge(MergeArgs),
    /// Compare an EXR render with a reference EXR: relMSE, block-8 relMSE, mean ratios.
    Compare {
        render: PathBuf,
        reference: PathBuf,
        /// Compare only the rectangle of W x H pixels whose top left is pixel (X, Y), in both
        /// images (a region such as a caustic).
        #[arg(long, num_args = 4, value_names = ["X", "Y", "W", "H"])]
        crop: Option<Vec<usize>>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args)]
struct RenderArgs {
    /// The scene (.gltf or .glb).
    scene: PathBuf,
    /// Output image(s): .exr and/or .png; give -o more than once for both.
    #[arg(short, long = "output", required = true)]
    output: Vec<PathBuf>,
    /// Samples per pixel.
    #[arg(long, default_value_t = 64, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    spp: u32,
    #[command(flatten)]
    options: RenderOptions,
    /// Print GPU time per kernel, samples/s and bytes of path state per path.
    #[arg(long)]
    stats: bool,
    /// With --stats, print them as JSON.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    scale: ScaleArgs,
}

/// How a render is cut up: over devices, and into partial films for a farm (docs/SCALE.md).
#[derive(clap::Args)]
struct ScaleArgs {
    /// Render samples A..B of the seed's sample sequence only (instead of --spp), into a
    /// partial film (.exr) that `wavetrace merge` adds to the others.
    #[arg(long, value_name = "A..B", value_parser = parse_sample_range, conflicts_with = "spp")]
    samples: Option<(u32, u32)>,
    /// Render the W x H pixels from pixel (X, Y) only, into a partial film (.exr).
    #[arg(long, num_args = 4, value_names = ["X", "Y", "W", "H"], allow_negative_numbers = true, value_parser = clap::value_parser!(u32))]
    tile: Option<Vec<u32>>,
    /// Write the raw film as a partial film (.exr) even for a whole render.
    #[arg(long)]
    partial: bool,
    /// Render on several devices together: `all`, or indices or name parts separated by commas
    /// (`wavetrace info` lists them); default: WAVETRACE_DEVICE, else the best device.
    #[arg(long, value_name = "all|0,1,...")]
    devices: Option<String>,
    /// Samples of a chunk that devices take, one after another, from a shared counter;
    /// default: about 16 M camera paths, at least 4 chunks a device.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    chunk_spp: Option<u32>,
    /// Look through the scene's camera N, in the file's node order (0: the first).
    #[arg(long, default_value_t = 0)]
    camera: usize,
    /// Render frames A to B - 1 of the scene's animations (at frame / --fps seconds), one
    /// image each: a run of `#` in the output's name is the frame number, zero-padded (else
    /// `.NNNN` goes before the extension).
    #[arg(long, value_name = "A..B", value_parser = parse_frame_range)]
    frames: Option<(u32, u32)>,
    /// Frames per second of --frames.
    #[arg(long, default_value_t = 24.0)]
    fps: f32,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// Partial films, in any order.
    #[arg(required = true)]
    parts: Vec<PathBuf>,
    /// The image (.exr, .png) or, with --partial, the merged partial film (.exr).
    #[arg(short, long = "output", required = true)]
    output: PathBuf,
    /// Write a partial film, to merge with others later, instead of the image.
    #[arg(long)]
    partial: bool,
}

#[derive(clap::Args)]
struct ViewArgs {
    /// The scene (.gltf or .glb); another can be dropped onto the window.
    scene: PathBuf,
    /// Stop adding samples at this many per pixel (the window stays open); default: never,
    /// up to the sample sequence's 2^24.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    spp: Option<u32>,
    /// Samples per pixel of one pass: more for throughput, fewer for a quicker response.
    #[arg(long, default_value_t = 1, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=4096))]
    pass_spp: u32,
    /// Where F5 and P write their images.
    #[arg(long, value_name = "FOLDER", default_value = ".")]
    shots: PathBuf,
    #[command(flatten)]
    options: RenderOptions,
}

/// What `render` and `view` share: how the image is made and shown.
#[derive(clap::Args)]
struct RenderOptions {
    /// Width and height; default 1024 along the longer side, the other from the camera's aspect ratio.
    #[arg(long, num_args = 2, action = clap::ArgAction::Set, value_names = ["W", "H"], allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    res: Option<Vec<u32>>,
    /// Largest number of path segments (Mitsuba's max_depth): 1 = emitters seen directly.
    #[arg(long, default_value_t = 8, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    max_depth: u32,
    /// Russian roulette from this many scattering events on, as Mitsuba does it (survival
    /// min(max(throughput), 0.95)); 0 turns it off.
    #[arg(long, default_value_t = wavetrace::integrator::DEFAULT_RR_DEPTH, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..))]
    rr_depth: u32,
    #[arg(long, default_value_t = 0, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..))]
    seed: u32,
    #[arg(long, value_enum, default_value_t = Trace::Auto)]
    trace: Trace,
    /// wavefront: one kernel per stage over queues of paths; megakernel: one kernel traces
    /// each whole path (the baseline); bdpt: bidirectional path tracing on the wavefront;
    /// pmlt: parallel Metropolis light transport over bdpt's paths (docs/PMLT.md).
    #[arg(long, value_enum, default_value_t = IntegratorArg::Wavefront)]
    integrator: IntegratorArg,
    /// How next-event estimation picks a light: bvh (by importance at the shading point,
    /// GPU-built light BVH; uniform where the lights are all alike, which the BVH cannot tell
    /// apart, as a rectangle light's two triangles), cpu-bvh (the same, tree built on the CPU by SAOH), tree (by
    /// power, GPU-built tree), cdf (by power, flat CDF from the tree), cpu-cdf (by power, CDF
    /// summed on the CPU), uniform.
    #[arg(long, default_value = "bvh", value_parser = parse_light_selection)]
    lights: LightSelection,
    /// Point and spot lights with a range: off (chosen with the other lights), bits or lists
    /// (chosen among those culled to the shading point's screen tile or world-grid cell, held
    /// as bit arrays or as index lists; docs/LIGHT_CULLING.md; path tracers only), auto
    /// (lists for the path tracers, off for bdpt).
    #[arg(long, default_value = "auto")]
    light_culling: CullingArg,
    /// Entries of a cell's index list (--light-culling lists); a cell with more lights chooses
    /// among all ranged lights by power.
    #[arg(long, default_value_t = wavetrace::lights::culling::DEFAULT_LIST_CAPACITY, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(wavetrace::interface::LIGHT_CULLING_MAX_LIST)))]
    light_list_capacity: u32,
    /// About this many cells in light culling's world grid (for points off the first bounce).
    #[arg(long, default_value_t = wavetrace::lights::culling::DEFAULT_GRID_CELLS, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    light_grid_cells: u32,
    /// Cull spot lights by their range sphere only, not their cone.
    #[arg(long)]
    no_cull_cones: bool,
    /// Screen tiles cull by their depth bounds only, without the 2.5D mask of their primary
    /// hits' depths.
    #[arg(long)]
    no_depth_mask: bool,
    /// The lanes of a subgroup walk the union of their cells' bit arrays together, as a
    /// rasteriser's tiles do, instead of each lane its own (slower on the H100, where a path
    /// tracer's lanes seldom share a cell: docs/LIGHT_CULLING.md).
    #[arg(long)]
    cull_scalarise: bool,
    /// How culling fills its cells: lights (each light visits the cells of its footprint and
    /// sets its bit or appends its index, with global atomics; lists are then sorted) or cells
    /// (each cell tests every light, setting bits or compacting indices in shared memory).
    #[arg(long, default_value = "lights")]
    cull_build: CullBuild,
    /// Rebuild the lights' selection structure at the start of every pass (megakernel) or
    /// scheduler submission (wavefront), as changing emission would, so that --stats shows its
    /// cost.
    #[arg(long)]
    rebuild_lights: bool,
    /// Wavefront scheduler: gpu (a fixed sequence of indirect launches, no count read back)
    /// or cycles (the kernel with the most queued paths next, from counts read back each step).
    #[arg(long, default_value = "gpu", value_parser = parse_schedule)]
    schedule: Schedule,
    /// Wavefront path slots (paths in flight); default: an eighth of device memory, at most 2^23.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    path_slots: Option<u32>,
    /// Whether the wavefront sorts the paths waiting for shading by material (off by default:
    /// no faster on the H100 even with textured glTF materials, docs/BENCHMARKS.md).
    #[arg(long, value_enum, default_value_t = Switch::Off)]
    material_sort: Switch,
    /// Whether the wavefront path tracer and BDPT (PMLT: only when on) sort the rays waiting for
    /// extend and connect by direction and origin; auto: for scenes of 100,000 triangles or more.
    #[arg(long, value_enum, default_value_t = RaySort::Auto)]
    ray_sort: RaySort,
    /// An equirectangular environment map (.hdr or .exr) lighting the scene from around it.
    #[arg(long, value_name = "FILE", conflicts_with = "env_color")]
    env: Option<PathBuf>,
    /// A constant environment radiance (linear RGB).
    #[arg(long, num_args = 3, value_names = ["R", "G", "B"], allow_negative_numbers = true)]
    env_color: Option<Vec<f32>>,
    /// Multiplies the environment's radiance.
    #[arg(long, default_value_t = 1.0, allow_negative_numbers = true)]
    env_strength: f32,
    /// Turns the environment map about +Y, degrees (counter-clockwise seen from above).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    env_rotation: f32,
    /// bdpt: where splats (light vertices seen by the camera) are summed: fixed (the
    /// fixed-point film, the same bits every run), float (a film of 64-bit float sums with float
    /// atomics, a compare-and-swap loop where the device has none) or cas (the loop everywhere).
    #[arg(long, default_value = "fixed", value_parser = parse_splat_film)]
    splat_film: SplatFilm,
    /// Where a path's random numbers come from: sobol (Owen-scrambled Sobol points, each
    /// pixel's samples spread evenly over the pixel, BSDF directions and light points) or
    /// independent (a hash of the counters). pmlt's chains draw their own.
    #[arg(long, default_value = "sobol", value_parser = parse_sampler)]
    sampler: Sampler,
    /// bdpt: render strategy (s, t) alone, unweighted: s light subpath vertices, t camera
    /// subpath vertices (the camera included).
    #[arg(long, num_args = 2, value_names = ["S", "T"], allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..))]
    strategy: Option<Vec<u32>>,
    /// bdpt: camera subpaths that connect to each light subpath (1, 2 or 4), of pixels 8
    /// apart: fewer light subpaths, fewer rays a sample, with MIS counting them.
    #[arg(long, default_value_t = wavetrace::integrator::DEFAULT_BDPT_LIGHT_SHARE, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(wavetrace::integrator::bdpt::MAX_LIGHT_SHARE)))]
    bdpt_light_share: u32,
    /// pmlt: Markov chains, each of one path length (allotted to lengths by their brightness).
    #[arg(long, default_value_t = MltSettings::default().chains, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    mlt_chains: u32,
    /// pmlt: proposals each chain makes an iteration (1 to 1024), weighed together by
    /// generalized Metropolis-Hastings.
    #[arg(long, default_value_t = MltSettings::default().proposals, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(wavetrace::interface::MLT_MAX_PROPOSALS)))]
    mlt_proposals: u32,
    /// pmlt: uniform samples per path length that measure each length's brightness and start
    /// the chains in proportion to their contribution.
    #[arg(long, default_value_t = MltSettings::default().bootstrap, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    mlt_bootstrap: u32,
    /// pmlt: at most this many rounds of --mlt-bootstrap samples a length: another round, of
    /// the path lengths whose brightness has a standard error above 2% (light that few samples
    /// find), while there are any; 1 = one round.
    #[arg(long, default_value_t = MltSettings::default().bootstrap_rounds, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=i64::from(wavetrace::integrator::pmlt::start::MAX_BOOTSTRAP_ROUNDS)))]
    mlt_bootstrap_rounds: u32,
    /// pmlt: iterations (default: enough for --spp path evaluations per pixel).
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    mlt_iterations: Option<u32>,
    /// pmlt: iterate for this many seconds instead (after the bootstrap).
    #[arg(long, value_name = "SECONDS", conflicts_with = "mlt_iterations")]
    time: Option<f64>,
    /// pmlt: the chance that an iteration's proposals are small steps (else large steps:
    /// fresh uniform samples).
    #[arg(long, default_value_t = MltSettings::default().small_step, allow_negative_numbers = true)]
    mlt_small_step: f32,
    /// pmlt: a small step's deviation in primary sample space.
    #[arg(long, default_value_t = MltSettings::default().sigma, allow_negative_numbers = true)]
    mlt_sigma: f32,
    /// pmlt: large steps' proposals also count as uniform samples, weighed against the chains'
    /// by the balance heuristic (Kelemen et al. 2002); off: the chains' samples alone.
    #[arg(long, value_enum, default_value_t = if MltSettings::default().large_step_mis { Switch::On } else { Switch::Off })]
    mlt_large_step_mis: Switch,
    /// pmlt: the chains' target is the path's luminance over its pixel's brightness as the
    /// bootstrap saw it, so that dark pixels get about the same relative effort as bright ones
    /// (Hoberock and Hart 2010); off: the luminance alone.
    #[arg(long, value_enum, default_value_t = if MltSettings::default().pixel_importance { Switch::On } else { Switch::Off })]
    mlt_pixel_importance: Switch,
    /// pmlt: the image scaled so that its mean luminance is the bootstrap's estimate of it, so
    /// that how the chains spread over bright and dim pixels does not move it; off: the
    /// chains' splats as they add up.
    #[arg(long, value_enum, default_value_t = if MltSettings::default().normalise { Switch::On } else { Switch::Off })]
    mlt_normalise: Switch,
    /// Shader execution reordering (VK_NV_ray_tracing_invocation_reorder) in the extend kernel
    /// (wavefront, bdpt), where the device has it: threads regrouped by the instance they hit
    /// where the device regroups (`wavetrace info` says; the H100 does not, and there the hit
    /// read from a hit object is what it changes).
    #[arg(long, value_enum, default_value_t = Switch::On)]
    reorder: Switch,
    /// One acceleration structure for every instance instead of one per mesh (no instance
    /// transitions in traversal; instanced meshes are stored once per instance).
    #[arg(long)]
    merge_instances: bool,
    /// Kernels that handle every scene feature (textures, vertex colours, normal maps, alpha, volumes,
    /// environment, punctual lights, every glTF lobe), instead of kernels specialised to the
    /// features the scene uses; both give the same image.
    #[arg(long)]
    general_kernels: bool,
    /// Read files that the scene's URIs name outside its folder (absolute paths, `..`, links
    /// out); by default a scene reads only what lies beside it.
    #[arg(long)]
    allow_outside_uris: bool,
    /// Render the scene with its KHR_materials_variants variant of this name (the file's
    /// variants are listed at info level, RUST_LOG=info, when none is chosen).
    #[arg(long, value_name = "NAME")]
    variant: Option<String>,
    /// How PNG output and the viewer map radiance to the display: clamp, reinhard or aces
    /// (Hill's ACES fit); EXR output stays linear.
    #[arg(long, default_value = "clamp", value_parser = parse_tone_map)]
    tone_map: ToneMap,
    /// Exposure in stops before the tone map (PNG output and the viewer).
    #[arg(long, default_value_t = 0.0, allow_negative_numbers = true)]
    exposure: f32,
    /// Capture the render's work (view: the first sample pass; F12 captures later ones) with
    /// RenderDoc's in-application API; wavetrace must run under RenderDoc (docs/VIEWER.md).
    #[arg(long)]
    capture: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum RaySort {
    Auto,
    On,
    Off,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Switch {
    On,
    Off,
}

#[derive(Clone, Copy, ValueEnum)]
enum IntegratorArg {
    Wavefront,
    Megakernel,
    Bdpt,
    Pmlt,
}

#[derive(Clone, Copy, ValueEnum)]
enum Trace {
    /// Our own traversal on GPUs without ray-tracing cores (NVIDIA's A100, H100, H200...),
    /// else ray queries where the device has them, else the ray-tracing pipeline.
    Auto,
    Query,
    Pipeline,
    /// Our own traversal in compute shaders: faster than the driver's on GPUs without
    /// ray-tracing cores (H100, H200).
    Software,
}

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn")).init();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Info { json } => info(json),
        Command::Render(args) => render(&args),
        Command::View(args) => view(&args),
        Command::Merge(args) => merge(&args),
        Command::Compare {
            render,
            reference,
            crop,
            json,
        } => compare(&render, &reference, crop.as_deref(), json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("wavetrace: {message}");
            ExitCode::FAILURE
        }
    }
}

fn info(json: bool) -> Result<(), String> {
    let report = wavetrace::info::system_report().map_err(|e| e.to_string())?;
    if json {
        let text = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        println!("{text}");
    } else {
        print!("{report}");
    }
    Ok(())
}

/// The most warnings printed for one file; the rest are counted.
const MAX_WARNINGS_SHOWN: usize = 50;

fn print_warnings(source: &Path, warnings: &[String]) {
    for warning in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("wavetrace: warning: {}: {warning}", source.display());
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        eprintln!(
            "wavetrace: warning: {}: {} more warnings not shown",
            source.display(),
            warnings.len() - MAX_WARNINGS_SHOWN
        );
    }
}

/// 1024 pixels along the longer side, the other from the camera's aspect ratio (square
/// without one), so that no aspect ratio makes an image too large to allocate.
fn default_resolution(aspect_ratio: Option<f32>) -> (u32, u32) {
    const LONG_SIDE: f32 = 1024.0;
    let aspect = aspect_ratio.filter(|a| a.is_finite() && *a > 0.0).unwrap_or(1.0);
    let short_side = |ratio: f32| ((LONG_SIDE * ratio).round() as u32).max(1);
    if aspect >= 1.0 {
        (LONG_SIDE as u32, short_side(1.0 / aspect))
    } else {
        (short_side(aspect), LONG_SIDE as u32)
    }
}

/// The environment the arguments ask for, checked and loaded before any GPU work.
fn environment(args: &RenderOptions) -> Result<Option<Environment>, String> {
    if !(args.env_strength.is_finite() && args.env_strength >= 0.0) {
        return Err(format!(
            "--env-strength {}: must be finite and not negative",
            args.env_strength
        ));
    }
    if !args.env_rotation.is_finite() {
        return Err(format!("--env-rotation {}: must be finite", args.env_rotation));
    }
    let mut environment = match (&args.env, args.env_color.as_deref()) {
        (Some(path), _) => {
            let map = EnvironmentMap::load(path).map_err(|e| e.to_string())?;
            print_warnings(path, &map.warnings);
            Environment::map(map)
        }
        (None, Some(&[r, g, b])) => {
            let color = glam::Vec3::new(r, g, b);
            if !(color.is_finite() && color.min_element() >= 0.0) {
                return Err(format!("--env-color {r} {g} {b}: must be finite and not negative"));
            }
            Environment::constant(color)
        }
        _ => return Ok(None),
    };
    environment.strength = args.env_strength;
    environment.rotation_degrees = args.env_rotation;
    Ok(Some(environment))
}

fn render(args: &RenderArgs) -> Result<(), String> {
    let scale = &args.scale;
    let partial = scale.samples.is_some() || scale.tile.is_some() || scale.partial;
    check_outputs(&args.output, partial)?;
    if !(scale.fps.is_finite() && scale.fps > 0.0) {
        return Err(format!("--fps {}: must be positive", scale.fps));
    }
    let display = display(&args.options)?;
    let devices = scale.devices.clone().or_else(|| {
        std::env::var("WAVETRACE_DEVICE")
            .ok()
            .filter(|d| d.contains(',') || d.trim() == "all")
    });
    if args.options.capture && devices.is_some() {
        return Err("--capture: RenderDoc captures one device; leave out --devices".into());
    }
    // Found before the scene loads and the device opens, so that its absence costs nothing.
    let capture = match args.options.capture {
        true => Some(RenderDoc::attach().map_err(|e| e.to_string())?),
        false => None,
    };
    let frames: Vec<Option<u32>> = match scale.frames {
        Some((first, end)) => (first..end).map(Some).collect(),
        None => vec![None],
    };
    let mut contexts = None;
    for frame in frames {
        let time = frame.map(|f| f as f32 / scale.fps);
        let mut scene = load_scene(&args.scene, &args.options, time)?;
        choose_camera(&mut scene, &args.scene, scale.camera)?;
        if contexts.is_none() {
            contexts = Some(
                match &devices {
                    Some(list) => Context::open_each(&ContextDesc::default(), list),
                    None => Context::new(&ContextDesc::default()).map(|c| vec![c]),
                }
                .map_err(|e| e.to_string())?,
            );
        }
        let contexts = contexts.as_deref().unwrap_or_default();
        let film = render_frame(args, &scene, contexts, devices.is_some(), capture.as_ref())?;
        for output in &args.output {
            let output = frame.map_or_else(|| output.clone(), |f| frame_path(output, f));
            if partial {
                wavetrace::scale::write_partial(&output, &film).map_err(|e| e.to_string())?;
            } else {
                let image = film.mean().map_err(|e| e.to_string())?;
                wavetrace::film::write_image(&output, &image, &display).map_err(|e| e.to_string())?;
            }
        }
    }
    Ok(())
}

/// One image of the render (a frame, or the only one) as a partial film: the whole render's
/// film when nothing split it.
fn render_frame(
    args: &RenderArgs,
    scene: &Scene,
    contexts: &[Context],
    chunked: bool,
    capture: Option<&RenderDoc>,
) -> Result<PartialFilm, String> {
    let scale = &args.scale;
    let (first_sample, end_sample) = scale.samples.unwrap_or((0, args.spp));
    let mut settings = render_settings(&args.options, scene, &contexts[0], end_sample - first_sample)?;
    if let Some(&[x, y, width, height]) = scale.tile.as_deref() {
        settings.crop = Some(Crop { x, y, width, height });
    }
    // --devices (even of one) takes the chunked path, so that one device's figures compare.
    let sums = if !chunked && first_sample == 0 {
        render_on_one(args, scene, &contexts[0], &settings, capture)?
    } else {
        render_on_several(args, scene, contexts, &settings, first_sample)?
    };
    let part = Part {
        tile: settings.covered(),
        first_sample,
        end_sample,
    };
    let fingerprint = Fingerprint::of(scene, scene.camera.as_ref(), &settings);
    Ok(PartialFilm::of_render(
        settings.width,
        settings.height,
        sums,
        part,
        fingerprint,
    ))
}

/// The output of frame `frame`: a run of `#` replaced by the number, zero-padded to its length,
/// else `.NNNN` before the extension.
fn frame_path(output: &Path, frame: u32) -> PathBuf {
    let name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let renamed = match name.find('#') {
        Some(start) => {
            let run = name[start..].chars().take_while(|&c| c == '#').count();
            format!("{}{frame:0run$}{}", &name[..start], &name[start + run..])
        }
        None => match name.rsplit_once('.') {
            Some((stem, extension)) => format!("{stem}.{frame:04}.{extension}"),
            None => format!("{name}.{frame:04}"),
        },
    };
    output.with_file_name(renamed)
}

/// Checked before the render, so a typo does not cost a render.
fn check_outputs(outputs: &[PathBuf], partial: bool) -> Result<(), String> {
    for output in outputs {
        let extension = output.extension().and_then(|e| e.to_str()).map(str::to_ascii_lowercase);
        match extension.as_deref() {
            Some("exr") => {}
            Some("png") if !partial => {}
            _ if partial => {
                return Err(format!(
                    "{}: a partial film (--samples, --tile, --partial) is written as .exr",
                    output.display()
                ))
            }
            _ => {
                return Err(format!(
                    "{}: unsupported output format (use .exr or .png)",
                    output.display()
                ))
            }
        }
        let folder = output
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if !folder.is_dir() {
            return Err(format!(
                "{}: cannot write there: the folder {} does not exist",
                output.display(),
                folder.display()
            ));
        }
    }
    Ok(())
}

/// Makes camera `index` (in node order) the scene's camera.
fn choose_camera(scene: &mut Scene, path: &Path, index: usize) -> Result<(), String> {
    if index == 0 {
        return Ok(());
    }
    let count = usize::from(scene.camera.is_some()) + scene.more_cameras.len();
    match scene.more_cameras.get(index - 1) {
        Some(camera) if scene.camera.is_some() => {
            scene.camera = Some(camera.clone());
            Ok(())
        }
        _ => Err(format!(
            "{}: --camera {index}: the scene has {count} usable camera{} (0 to {})",
            path.display(),
            if count == 1 { "" } else { "s" },
            count.saturating_sub(1)
        )),
    }
}

/// A render on one device from the first sample: the film's sums.
fn render_on_one(
    args: &RenderArgs,
    scene: &Scene,
    context: &Context,
    settings: &RenderSettings,
    capture: Option<&RenderDoc>,
) -> Result<Vec<u64>, String> {
    if let Some(capture) = capture {
        capture.start(context);
    }
    let mut renderer = Renderer::new(context, scene, settings).map_err(|e| e.to_string())?;
    let progress = progress_bar(settings.covered().pixels() as f64 * f64::from(settings.spp));
    let rendered = renderer.render_with_progress(|share| progress.update(share));
    if let Some(capture) = capture {
        capture.end(context).map_err(|e| e.to_string())?;
    }
    let (_, stats) = rendered.map_err(|e| e.to_string())?;
    progress.bar.finish_and_clear();
    if args.stats {
        if args.json {
            println!("{}", serde_json::to_string_pretty(&stats).map_err(|e| e.to_string())?);
        } else {
            print_stats(settings, &stats);
        }
    }
    renderer.film().read_sums(context).map_err(|e| e.to_string())
}

/// A render over several devices, or of a sample range that does not start at 0: chunks from
/// a shared counter.
fn render_on_several(
    args: &RenderArgs,
    scene: &Scene,
    contexts: &[Context],
    settings: &RenderSettings,
    first_sample: u32,
) -> Result<Vec<u64>, String> {
    let pixels = settings.covered().pixels();
    let chunks = Chunks::new(first_sample, settings.spp, pixels, contexts.len(), args.scale.chunk_spp);
    let split = render_split(contexts, scene, settings, &chunks).map_err(|e| e.to_string())?;
    if args.stats {
        let total = pixels as f64 * f64::from(settings.spp);
        if args.json {
            let json = serde_json::json!({
                "render_seconds": split.render_seconds,
                "samples_per_second": total / split.render_seconds,
                "chunk_spp": chunks.chunk,
                "devices": split.devices,
            });
            println!("{}", serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?);
        } else {
            println!(
                "{}x{}, {} spp in chunks of {}, {} devices: {:.3} s, {:.1} Msamples/s",
                settings.width,
                settings.height,
                settings.spp,
                chunks.chunk,
                contexts.len(),
                split.render_seconds,
                total / split.render_seconds / 1e6
            );
            for d in &split.devices {
                println!(
                    "  {}: {} chunks, {} samples, {:.1} Msamples/s, {:.3} s busy ({:.3} s GPU), {:.3} s idle, {:.3} s setup",
                    d.device,
                    d.chunks,
                    d.camera_paths,
                    d.samples_per_second() / 1e6,
                    d.busy_seconds,
                    d.gpu_seconds,
                    d.idle_seconds,
                    d.setup_seconds
                );
            }
        }
    }
    Ok(split.sums)
}

fn merge(args: &MergeArgs) -> Result<(), String> {
    check_outputs(std::slice::from_ref(&args.output), args.partial)?;
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let merged = wavetrace::scale::merge_files(&args.parts, threads)?;
    if args.partial {
        return wavetrace::scale::write_partial(&args.output, &merged).map_err(|e| e.to_string());
    }
    let image = merged.mean().map_err(|e| e.to_string())?;
    wavetrace::film::write_image(&args.output, &image, &Display::default()).map_err(|e| e.to_string())
}

/// `--frames A..B`: frames A to B - 1.
fn parse_frame_range(text: &str) -> Result<(u32, u32), String> {
    parse_range(text, "frame", u32::MAX)
}

/// `--samples A..B`: 0 <= A < B <= the sample sequence's length.
fn parse_sample_range(text: &str) -> Result<(u32, u32), String> {
    parse_range(text, "sample", Renderer::MAX_SAMPLES)
}

/// `A..B` with A < B <= `most`: the `what`s A to B - 1.
fn parse_range(text: &str, what: &str, most: u32) -> Result<(u32, u32), String> {
    let (first, end) = text
        .split_once("..")
        .ok_or_else(|| format!("`{text}`: a {what} range is A..B ({what}s A to B - 1)"))?;
    let parse = |n: &str| {
        n.trim()
            .parse::<u32>()
            .map_err(|e| format!("`{text}`: `{n}` is not a {what} index ({e})"))
    };
    let (first, end) = (parse(first)?, parse(end)?);
    if first >= end || end > most {
        let bound = if most == u32::MAX {
            String::new()
        } else {
            format!(" <= {most}")
        };
        return Err(format!("`{text}`: needs A < B{bound} (the {what}s A to B - 1)"));
    }
    Ok((first, end))
}

fn display(options: &RenderOptions) -> Result<Display, String> {
    if !options.exposure.is_finite() {
        return Err(format!("--exposure {}: must be finite", options.exposure));
    }
    Ok(Display {
        tone_map: options.tone_map,
        exposure: options.exposure,
    })
}

/// Loads the scene, posed as its animations have it at `time` seconds where given.
fn load_scene(path: &Path, options: &RenderOptions, time: Option<f32>) -> Result<Scene, String> {
    let import = ImportOptions {
        allow_outside_uris: options.allow_outside_uris,
        time,
        variant: options.variant.clone(),
    };
    let scene = Scene::load_with(path, &import).map_err(|e| e.to_string())?;
    print_warnings(path, &scene.warnings);
    Ok(scene)
}

/// The settings the options ask for, for `scene` on `context`'s device.
fn render_settings(
    options: &RenderOptions,
    scene: &Scene,
    context: &Context,
    spp: u32,
) -> Result<RenderSettings, String> {
    let args = options;
    let (width, height) = match args.res.as_deref() {
        Some([w, h]) => (*w, *h),
        _ => default_resolution(scene.camera.as_ref().and_then(|c| c.aspect_ratio)),
    };
    let environment = environment(args)?;
    let available = context.trace_backends();
    let backend = match args.trace {
        Trace::Auto => context
            .adapter()
            .auto_trace_backend(available)
            .ok_or("the device has no trace backend")?,
        Trace::Query => TraceBackend::Query,
        Trace::Pipeline => TraceBackend::Pipeline,
        Trace::Software => TraceBackend::Software,
    };
    Ok(RenderSettings {
        width,
        height,
        spp,
        max_depth: args.max_depth,
        rr_depth: args.rr_depth,
        seed: args.seed,
        sampler: args.sampler,
        backend,
        integrator: match args.integrator {
            IntegratorArg::Wavefront => IntegratorKind::Wavefront,
            IntegratorArg::Megakernel => IntegratorKind::Megakernel,
            IntegratorArg::Bdpt => IntegratorKind::Bdpt,
            IntegratorArg::Pmlt => IntegratorKind::Pmlt,
        },
        light_selection: args.lights,
        light_culling: CullingSettings {
            format: match (args.light_culling, args.integrator) {
                (CullingArg::Auto, IntegratorArg::Bdpt | IntegratorArg::Pmlt) => CullingFormat::Off,
                (CullingArg::Auto, _) => CullingFormat::Lists,
                (CullingArg::Format(format), _) => format,
            },
            list_capacity: args.light_list_capacity,
            cones: !args.no_cull_cones,
            grid_cells: args.light_grid_cells,
            depth_mask: !args.no_depth_mask,
            scalarise: args.cull_scalarise,
            build: args.cull_build,
        },
        environment,
        rebuild_lights_every_pass: args.rebuild_lights,
        schedule: args.schedule,
        path_slots: args.path_slots,
        sort_by_material: args.material_sort == Switch::On,
        sort_rays: match args.ray_sort {
            RaySort::Auto => None,
            RaySort::On => Some(true),
            RaySort::Off => Some(false),
        },
        splat_film: args.splat_film,
        strategy: args.strategy.as_deref().map(|st| (st[0], st[1])),
        bdpt_light_share: args.bdpt_light_share,
        general_kernels: args.general_kernels,
        ray_log_capacity: 0,
        merge_instances: args.merge_instances,
        invocation_reorder: args.reorder == Switch::On,
        crop: None,
        mlt: MltSettings {
            chains: args.mlt_chains,
            proposals: args.mlt_proposals,
            bootstrap: args.mlt_bootstrap,
            bootstrap_rounds: args.mlt_bootstrap_rounds,
            iterations: args.mlt_iterations,
            time_seconds: args.time,
            small_step: args.mlt_small_step,
            large_step_mis: args.mlt_large_step_mis == Switch::On,
            pixel_importance: args.mlt_pixel_importance == Switch::On,
            normalise: args.mlt_normalise == Switch::On,
            sigma: args.mlt_sigma,
            start: MltStart::Bootstrap,
        },
    })
}

fn view(args: &ViewArgs) -> Result<(), String> {
    let options = &args.options;
    let display = display(options)?;
    let capture = match options.capture {
        true => Some(RenderDoc::attach().map_err(|e| e.to_string())?),
        false => RenderDoc::attach().ok(),
    };
    let scene = load_scene(&args.scene, options, None)?;
    // The viewer's device opens with the window, once the display is known.
    let options_for = |scene: &Scene, context: &Context| render_settings(options, scene, context, args.pass_spp);
    wavetrace::viewer::run(wavetrace::viewer::ViewConfig {
        scene,
        settings: &options_for,
        culling_requested: match options.light_culling {
            CullingArg::Auto => CullingFormat::Lists,
            CullingArg::Format(format) => format,
        },
        target_spp: args.spp,
        display,
        shots: args.shots.clone(),
        renderdoc: capture,
        capture_first_pass: options.capture,
        load_options: ImportOptions {
            allow_outside_uris: options.allow_outside_uris,
            time: None,
            variant: options.variant.clone(),
        },
    })
    .map_err(|e| e.to_string())
}

/// The render's progress on stderr: the share of camera paths started and their rate.
/// indicatif draws nothing when stderr is not a terminal (a log file, a CI run).
struct Progress {
    bar: ProgressBar,
    camera_paths: f64,
    started: std::time::Instant,
}

/// Steps of the bar: tenths of a percent.
const PROGRESS_STEPS: u64 = 1000;

fn progress_bar(camera_paths: f64) -> Progress {
    let bar = ProgressBar::new(PROGRESS_STEPS);
    let style = ProgressStyle::with_template("{bar:40} {percent:>3}% of camera paths started ({msg}), {elapsed}")
        .unwrap_or_else(|_| ProgressStyle::default_bar());
    bar.set_style(style);
    Progress {
        bar,
        camera_paths,
        started: std::time::Instant::now(),
    }
}

impl Progress {
    fn update(&self, share: f64) {
        let rate = share * self.camera_paths / self.started.elapsed().as_secs_f64().max(1e-9) / 1e6;
        self.bar.set_message(format!("{rate:.1} M/s"));
        self.bar
            .set_position((share.clamp(0.0, 1.0) * PROGRESS_STEPS as f64) as u64);
    }
}

fn parse_light_selection(text: &str) -> Result<LightSelection, String> {
    text.parse()
}

/// `--light-culling`: a format, or auto (the one measured best for the integrator).
#[derive(Clone, Copy, Debug)]
enum CullingArg {
    Auto,
    Format(CullingFormat),
}

impl std::str::FromStr for CullingArg {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "auto" => Ok(Self::Auto),
            _ => text
                .parse()
                .map(Self::Format)
                .map_err(|e: String| e.replace("(one of:", "(one of: auto,")),
        }
    }
}

fn parse_tone_map(text: &str) -> Result<ToneMap, String> {
    text.parse()
}

fn parse_schedule(text: &str) -> Result<Schedule, String> {
    text.parse()
}

fn parse_sampler(text: &str) -> Result<Sampler, String> {
    text.parse()
}

fn parse_splat_film(text: &str) -> Result<SplatFilm, String> {
    text.parse()
}

fn print_stats(settings: &RenderSettings, stats: &RenderStats) {
    println!(
        "{}x{}, {} spp, depth {}, {:?} integrator, {:?} backend, {} lights by {}: {:.3} s GPU, {:.3} s wall \
         ({:.3} s outside the GPU's {} submissions), {:.1} Msamples/s, {:.1} M extension rays/s, {:.1} M shadow rays/s",
        settings.width,
        settings.height,
        settings.spp,
        settings.max_depth,
        settings.integrator,
        settings.backend,
        stats.lights,
        stats.light_selection.name(),
        stats.gpu_seconds,
        stats.wall_seconds,
        stats.host_wait_seconds,
        stats.submissions,
        stats.samples_per_second / 1e6,
        stats.extension_rays_per_second / 1e6,
        stats.shadow_rays_per_second / 1e6,
    );
    println!("kernels specialised to: {}", stats.kernel_features);
    if let Some(schedule) = stats.schedule {
        println!(
            "{} schedule, {} path slots, {} bytes of path state per slot ({} unpacked), {} bytes of film per pixel, \
             material sort {}, ray sort {}",
            schedule.name(),
            stats.path_slots,
            stats.bytes_per_path,
            stats.unpacked_bytes_per_path,
            stats.film_bytes_per_pixel,
            if stats.sort_by_material { "on" } else { "off" },
            if stats.sort_rays { "on" } else { "off" }
        );
    }
    if let Some(culling) = &stats.culling {
        println!(
            "light culling ({:?}): {} ranged lights; {} tiles ({} with primary hits), {:.1} lights a lit tile (at most \
             {}); {} grid cells, {:.1} lights a lit cell (at most {}); {} lists overflowed",
            culling.format,
            culling.ranged_lights,
            culling.tiles,
            culling.tiles_with_hits,
            culling.mean_lights_per_tile,
            culling.max_lights_per_tile,
            culling.grid_cells,
            culling.mean_lights_per_grid_cell,
            culling.max_lights_per_grid_cell,
            culling.overflowed_cells
        );
    }
    if let Some(bdpt) = &stats.bdpt {
        print_bdpt_stats(bdpt);
    }
    if let Some(pmlt) = &stats.pmlt {
        print_pmlt_stats(pmlt);
    }
    println!(
        "  {:<20} {:>10} {:>9} {:>9} {:>12} {:>12} {:>11}",
        "kernel", "ms", "launches", "busy", "paths", "lane share", "slot share"
    );
    for kernel in &stats.kernels {
        let optional = |value: Option<String>| value.unwrap_or_else(|| "-".into());
        println!(
            "  {:<20} {:>10.4} {:>9} {:>9} {:>12} {:>12} {:>11}",
            kernel.name,
            kernel.milliseconds,
            kernel.launches,
            optional(kernel.busy_launches.map(|v| v.to_string())),
            optional(kernel.items.map(|v| v.to_string())),
            optional(kernel.active_lane_share.map(|v| format!("{:.1}%", v * 100.0))),
            optional(kernel.slot_share.map(|v| format!("{:.1}%", v * 100.0))),
        );
    }
}

fn print_pmlt_stats(pmlt: &wavetrace::integrator::PmltStats) {
    println!(
        "pmlt: {} chains x {} proposals, {} iterations in {:.3} s ({:.1} iterations/s, {:.1} M splats/s); \
         bootstrap {} samples in {} round(s), {:.3} s ({:.3} s of it starting the chains on the host); \
         image normalised by {:.4}",
        pmlt.chains,
        pmlt.proposals,
        pmlt.iterations,
        pmlt.iteration_seconds,
        pmlt.iterations_per_second,
        pmlt.splats_per_second / 1e6,
        pmlt.bootstrap_samples,
        pmlt.bootstrap_rounds,
        pmlt.bootstrap_seconds,
        pmlt.chain_start_seconds,
        pmlt.normalisation
    );
    for length in &pmlt.lengths {
        println!(
            "  length {:>2}: b {:.5} (+-{:.2}%), {:5.1}% of {} uniform samples lit, {:>6} chains, acceptance {:.3}, \
             moves {:.3}",
            length.length,
            length.b,
            100.0 * length.b_relative_error,
            100.0 * length.nonzero_share,
            length.bootstrap_samples,
            length.chains,
            length.acceptance,
            length.move_rate
        );
    }
}

fn print_bdpt_stats(bdpt: &wavetrace::integrator::BdptStats) {
    println!(
        "bdpt: {} path slots, splat film {:?}; subpath rays: light {}, camera {}; shadow paths: {} next-event, \
         {} connections, {} splats",
        bdpt.path_slots,
        bdpt.splat_film,
        bdpt.light_subpath_rays,
        bdpt.camera_subpath_rays,
        bdpt.next_event,
        bdpt.connections,
        bdpt.splats
    );
    let per_strategy: Vec<String> = bdpt
        .strategies
        .iter()
        .map(|c| format!("({},{}) {}", c.s, c.t, c.shadow_rays))
        .collect();
    println!("  shadow rays per strategy (s,t): {}", per_strategy.join(", "));
}

fn compare(
    render: &std::path::Path,
    reference: &std::path::Path,
    crop: Option<&[usize]>,
    json: bool,
) -> Result<(), String> {
    let mut image = wavetrace::film::read_exr(render).map_err(|e| e.to_string())?;
    let mut reference_image = wavetrace::film::read_exr(reference).map_err(|e| e.to_string())?;
    if let Some(&[x, y, width, height]) = crop {
        image = image
            .crop(x, y, width, height)
            .map_err(|e| format!("{}: {e}", render.display()))?;
        reference_image = reference_image
            .crop(x, y, width, height)
            .map_err(|e| format!("{}: {e}", reference.display()))?;
    }
    let c = wavetrace::film::metrics::compare(&image, &reference_image).map_err(|e| e.to_string())?;
    if json {
        println!("{}", serde_json::to_string_pretty(&c).map_err(|e| e.to_string())?);
    } else {
        let [r, g, b] = c.mean_ratio;
        println!(
            "relMSE {:.6}, block-8 relMSE {:.7}, mean ratio {r:.4} {g:.4} {b:.4}, non-finite pixels {}",
            c.rel_mse, c.block8_rel_mse, c.non_finite_pixels
        );
    }
    Ok(())
}
