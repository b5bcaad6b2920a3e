//! Scale-out (`wavetrace::scale`): a render over several contexts adds up to the one-device
//! render bit for bit whatever the chunk order; partial films of any split of sample ranges
//! and tiles, through their EXR files, merge into it bit for bit; mismatched parts are refused.

use crate::common;

use wavetrace::gpu::{Context, ContextDesc, TraceBackend, Validation};
use wavetrace::integrator::{Crop, IntegratorKind, RenderSettings, Renderer};
use wavetrace::scale::{self, Chunks, Fingerprint, MergeError, Part, PartialFilm};
use wavetrace::scene::Scene;

const WIDTH: u32 = 26;
const HEIGHT: u32 = 19;
const SPP: u32 = 6;

fn settings(backend: TraceBackend, integrator: IntegratorKind) -> RenderSettings {
    RenderSettings {
        integrator,
        ..RenderSettings::new(WIDTH, HEIGHT, SPP, 5, backend)
    }
}

/// The one-device render's raw film.
fn whole(context: &Context, scene: &Scene, settings: &RenderSettings) -> Vec<u64> {
    let mut renderer = Renderer::new(context, scene, settings).unwrap();
    renderer.render().unwrap();
    renderer.film().read_sums(context).unwrap()
}

/// Every device this machine has with validation on, and a second context of the first where
/// it has one only (lavapipe): two contexts either way.
fn contexts() -> Vec<Context> {
    let desc = ContextDesc {
        validation: Validation::On,
        ..ContextDesc::default()
    };
    let mut contexts = Context::open_each(&desc, "all").unwrap();
    if contexts.len() == 1 {
        let first = contexts[0].adapter().index.to_string();
        contexts.extend(Context::open_each(&desc, &first).unwrap());
    }
    contexts
}

fn check_validation(contexts: Vec<Context>) {
    let counts: Vec<_> = contexts.iter().map(Context::message_counts).collect();
    drop(contexts);
    for count in counts {
        assert_eq!(
            count.errors(),
            0,
            "the validation layer reported errors (see the log above)"
        );
    }
}

#[test]
fn several_contexts_render_the_one_device_image_bit_for_bit_in_any_chunk_order() {
    let contexts = contexts();
    let scene = common::load_scene("cornell-box");
    for &backend in contexts[0].trace_backends() {
        for integrator in [
            IntegratorKind::Wavefront,
            IntegratorKind::Megakernel,
            IntegratorKind::Bdpt,
        ] {
            let settings = settings(backend, integrator);
            let expected = whole(&contexts[0], &scene, &settings);
            // Chunks of 1 in a shuffled order; of 4 (the last one short) backwards.
            for (chunk, order) in [(1, vec![4, 0, 5, 2, 1, 3]), (4, vec![1, 0])] {
                let chunks = Chunks {
                    first_sample: 0,
                    samples: SPP,
                    chunk,
                    order,
                };
                let split = scale::render_split(&contexts, &scene, &settings, &chunks).unwrap();
                let what = format!("{integrator:?} on {backend:?}, chunks of {chunk}");
                let differing = split.sums.iter().zip(&expected).filter(|(a, b)| a != b).count();
                assert_eq!(differing, 0, "{what}: {differing} sums differ from one device's");
                assert_eq!(split.devices.len(), contexts.len());
                let paths: u64 = split.devices.iter().map(|d| d.camera_paths).sum();
                assert_eq!(paths, u64::from(WIDTH * HEIGHT * SPP), "{what}: every sample once");
                let taken: u32 = split.devices.iter().map(|d| d.chunks).sum();
                assert_eq!(taken, SPP.div_ceil(chunk), "{what}");
            }
        }
    }
    check_validation(contexts);
}

#[test]
fn default_chunks_cover_the_range_and_leave_every_device_several() {
    let chunks = Chunks::new(10, 1000, 1024 * 1024, 2, None);
    assert_eq!(chunks.chunk, 16, "about 16 M camera paths a chunk at 1024 x 1024");
    assert_eq!(chunks.order.len(), 63);
    let chunks = Chunks::new(0, 12, 100, 2, None);
    assert_eq!(
        (chunks.chunk, chunks.order.len()),
        (2, 6),
        "at least 4 a device where the samples allow"
    );
    let chunks = Chunks::new(0, 1, 100, 8, None);
    assert_eq!((chunks.chunk, chunks.order.len()), (1, 1));
}

/// A deterministic stream of numbers for the splits (no random crate in the tests).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u32) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % u64::from(n)) as u32
    }
}

/// Cuts `0..end` at `cuts` distinct random points.
fn cut(random: &mut Lcg, end: u32, cuts: u32) -> Vec<(u32, u32)> {
    let mut points: Vec<u32> = (0..cuts).map(|_| 1 + random.below(end - 1)).collect();
    points.extend([0, end]);
    points.sort_unstable();
    points.dedup();
    points.windows(2).map(|w| (w[0], w[1])).collect()
}

/// Renders one part of `settings` into a partial film, through its EXR file.
fn partial(
    context: &Context,
    scene: &Scene,
    settings: &RenderSettings,
    part: Part,
    folder: &std::path::Path,
    index: usize,
) -> (String, PartialFilm) {
    let samples = part.end_sample - part.first_sample;
    let settings = RenderSettings {
        spp: samples,
        crop: Some(part.tile),
        ..settings.clone()
    };
    let mut renderer = Renderer::new(context, scene, &settings).unwrap();
    renderer.render_samples(part.first_sample, samples).unwrap();
    let sums = renderer.film().read_sums(context).unwrap();
    let fingerprint = Fingerprint::of(scene, scene.camera.as_ref(), &settings);
    let film = PartialFilm::of_render(WIDTH, HEIGHT, sums, part, fingerprint);
    let path = folder.join(format!("part-{index}.exr"));
    scale::write_partial(&path, &film).unwrap();
    (path.display().to_string(), scale::read_partial(&path).unwrap())
}

#[test]
fn merging_any_split_of_samples_and_tiles_gives_the_whole_render_bit_for_bit() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-box");
    let folder = std::env::temp_dir().join(format!("wavetrace-scale-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let mut random = Lcg(20);
    let backend = context.trace_backends()[0];
    for integrator in [IntegratorKind::Wavefront, IntegratorKind::Bdpt] {
        let settings = settings(backend, integrator);
        let mut renderer = Renderer::new(context, &scene, &settings).unwrap();
        let expected_image = renderer.render().unwrap();
        let expected_sums = renderer.film().read_sums(context).unwrap();
        for split in 0..3 {
            // Sample ranges, then a grid of tiles with their own ranges: 2 to 12 parts.
            let cuts = [1 + random.below(2), random.below(2), random.below(2)];
            let ranges = cut(&mut random, SPP, cuts[0]);
            let columns = cut(&mut random, WIDTH, cuts[1]);
            let rows = cut(&mut random, HEIGHT, cuts[2]);
            let mut parts = Vec::new();
            for &(first_sample, end_sample) in &ranges {
                for &(x0, x1) in &columns {
                    for &(y0, y1) in &rows {
                        let tile = Crop {
                            x: x0,
                            y: y0,
                            width: x1 - x0,
                            height: y1 - y0,
                        };
                        parts.push(Part {
                            tile,
                            first_sample,
                            end_sample,
                        });
                    }
                }
            }
            let mut films: Vec<_> = parts
                .iter()
                .enumerate()
                .map(|(i, &part)| partial(context, &scene, &settings, part, &folder, i))
                .collect();
            // Merged in an order other than rendered.
            let count = films.len();
            films.rotate_left(count / 2);
            let merged = scale::merge(films).unwrap();
            let what = format!("{integrator:?}, split {split} into {count} parts: {parts:?}");
            assert!(merged.sums == expected_sums, "{what}: the sums differ");
            let image = merged.mean().unwrap();
            assert!(image.pixels == expected_image.pixels, "{what}: the image differs");
        }
    }
    std::fs::remove_dir_all(&folder).ok();
    gpu.finish();
}

#[test]
fn parts_of_other_settings_twice_held_samples_and_gaps_are_refused() {
    let gpu = common::gpu();
    let context = &gpu.context;
    let scene = common::load_scene("cornell-box");
    let folder = std::env::temp_dir().join(format!("wavetrace-scale-refusals-{}", std::process::id()));
    std::fs::create_dir_all(&folder).unwrap();
    let settings = settings(context.trace_backends()[0], IntegratorKind::Wavefront);
    let whole = Crop::whole(WIDTH, HEIGHT);
    let part = |first_sample, end_sample| Part {
        tile: whole,
        first_sample,
        end_sample,
    };
    let a = partial(context, &scene, &settings, part(0, 2), &folder, 0);
    let other_seed = RenderSettings {
        seed: 7,
        ..settings.clone()
    };
    let b = partial(context, &scene, &other_seed, part(2, 4), &folder, 1);
    match scale::merge(vec![a.clone(), b]) {
        Err(MergeError::Mismatch(name, _, differences)) => {
            assert!(name.ends_with("part-1.exr"), "{name}");
            assert!(
                differences.contains("seed 1") && differences.contains("seed 7"),
                "{differences}"
            );
        }
        other => panic!("parts of other seeds merged: {other:?}"),
    }
    // BDPT's parts hold other samples where their pixels share light subpaths otherwise.
    let sharing = |share| {
        let bdpt = RenderSettings {
            integrator: IntegratorKind::Bdpt,
            bdpt_light_share: share,
            ..settings.clone()
        };
        Fingerprint::of(&scene, scene.camera.as_ref(), &bdpt)
    };
    let differences = sharing(2).differences(&sharing(4));
    assert!(
        differences.iter().any(|line| line.contains("light_share 2")),
        "{differences:?}"
    );
    let overlapping = partial(context, &scene, &settings, part(1, 3), &folder, 2);
    assert!(matches!(
        scale::merge(vec![a.clone(), overlapping]),
        Err(MergeError::Overlap(..))
    ));
    // A tile leaves pixels without samples: merged, but no image.
    let tile = Part {
        tile: Crop {
            x: 0,
            y: 0,
            width: 5,
            height: HEIGHT,
        },
        first_sample: 2,
        end_sample: 6,
    };
    let tile = partial(context, &scene, &settings, tile, &folder, 3);
    let merged = scale::merge(vec![a.clone(), tile]).unwrap();
    let error = merged.mean().unwrap_err();
    assert!(matches!(error, MergeError::Incomplete { .. }), "{error}");
    assert!(error.to_string().contains("2 sample counts (2, 6)"), "{error}");
    // A film of another size, a header edited by hand, and an EXR that is no partial film.
    let small = RenderSettings {
        width: WIDTH - 1,
        ..settings.clone()
    };
    let mut renderer = Renderer::new(context, &scene, &small).unwrap();
    renderer.render_samples(2, 2).unwrap();
    let sums = renderer.film().read_sums(context).unwrap();
    let print = Fingerprint::of(&scene, scene.camera.as_ref(), &settings);
    let film = PartialFilm::of_render(
        WIDTH - 1,
        HEIGHT,
        sums,
        Part {
            tile: Crop::whole(WIDTH - 1, HEIGHT),
            ..part(2, 4)
        },
        print.clone(),
    );
    assert!(matches!(
        scale::merge(vec![a.clone(), ("small".into(), film)]),
        Err(MergeError::Mismatch(..))
    ));
    // The settings in the header changed by hand: they no longer hash to the fingerprint.
    let path = std::path::PathBuf::from(&a.0);
    let mut bytes = std::fs::read(&path).unwrap();
    let at = bytes.windows(6).position(|w| w == b"scene ").unwrap();
    bytes[at + 6] ^= 1;
    std::fs::write(&path, bytes).unwrap();
    let error = scale::read_partial(&path).unwrap_err().to_string();
    assert!(error.contains("part-0.exr") && error.contains("fingerprint"), "{error}");
    // A data window past the image's edge: the EXR reader would allocate it before any check.
    let path = folder.join("wide.exr");
    scale::write_partial(&path, &a.1).unwrap();
    let mut bytes = std::fs::read(&path).unwrap();
    let name = b"dataWindow\0box2i\0";
    let at = bytes.windows(name.len()).position(|w| w == name).unwrap() + name.len() + 4;
    // box2i: x min, y min, x max, y max (inclusive); x max one past the last column.
    bytes[at + 8..at + 12].copy_from_slice(&(WIDTH as i32).to_le_bytes());
    std::fs::write(&path, bytes).unwrap();
    let error = scale::read_partial(&path).unwrap_err().to_string();
    assert!(
        error.contains("wide.exr") && error.contains("data window lies outside"),
        "{error}"
    );
    // A header listing more parts than a merge checks against each other.
    let crowded = PartialFilm {
        parts: (0..10_001).map(|i| part(i, i + 1)).collect(),
        ..a.1.clone()
    };
    let path = folder.join("crowded.exr");
    scale::write_partial(&path, &crowded).unwrap();
    let error = scale::read_partial(&path).unwrap_err().to_string();
    assert!(
        error.contains("crowded.exr") && error.contains("more than 10000 parts"),
        "{error}"
    );
    let plain = folder.join("plain.exr");
    wavetrace::film::write_exr(&plain, &wavetrace::film::RgbImage::new(4, 4)).unwrap();
    let error = scale::read_partial(&plain).unwrap_err().to_string();
    assert!(
        error.contains("plain.exr") && error.contains("not a wavetrace partial film"),
        "{error}"
    );
    std::fs::remove_dir_all(&folder).ok();
    gpu.finish();
}
