//! A partial film as an OpenEXR file, so that farm tools and `exrheader` can read it: 32-bit
//! unsigned channels `R.hi R.lo G.hi G.lo B.hi B.lo` (each 64-bit sum's two halves) and
//! `samples`, over a data window that is the bounding box of what the part touched (its tile,
//! and for bidirectional path tracing the pixels its light paths splatted onto), inside a
//! display window of the whole image. The header holds the fingerprint's digest and lines and
//! the parts merged into the film.

use std::path::Path;

use exr::prelude::*;

use crate::film::FilmError;
use crate::integrator::Crop;

use super::fingerprint::Fingerprint;
use super::partial::{Merger, Part, PartialFilm, MAX_MERGED_PARTS};

const FORMAT_KEY: &str = "wavetrace";
const FORMAT: &str = "partial film 1";
const DIGEST_KEY: &str = "wavetrace.fingerprint";
const SETTINGS_KEY: &str = "wavetrace.settings";
const PARTS_KEY: &str = "wavetrace.parts";
const SUM_CHANNELS: [&str; 6] = ["R.hi", "R.lo", "G.hi", "G.lo", "B.hi", "B.lo"];
const SAMPLES_CHANNEL: &str = "samples";

fn file_error(path: &Path, problem: impl ToString) -> FilmError {
    FilmError::File {
        path: path.to_path_buf(),
        problem: problem.to_string(),
    }
}

fn text(path: &Path, value: &str) -> std::result::Result<Text, FilmError> {
    Text::new_or_none(value).ok_or_else(|| file_error(path, format!("cannot store `{value}` in an EXR header")))
}

/// The smallest rectangle holding every pixel with samples or sums (1 x 1 when none has).
fn touched(film: &PartialFilm) -> Crop {
    let width = film.width as usize;
    let touched = |index: usize| film.samples[index] > 0 || film.sums[3 * index..3 * index + 3].iter().any(|&s| s != 0);
    let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
    for index in (0..film.samples.len()).filter(|&i| touched(i)) {
        let (x, y) = (index % width, index / width);
        (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x), y1.max(y));
    }
    if x0 == usize::MAX {
        return Crop::whole(1, 1);
    }
    Crop {
        x: x0 as u32,
        y: y0 as u32,
        width: (x1 - x0 + 1) as u32,
        height: (y1 - y0 + 1) as u32,
    }
}

pub fn write_partial(path: &Path, film: &PartialFilm) -> std::result::Result<(), FilmError> {
    let window = touched(film);
    let inside = |index: usize| {
        let (x, y) = (
            window.x as usize + index % window.width as usize,
            window.y as usize + index / window.width as usize,
        );
        y * film.width as usize + x
    };
    let count = window.pixels() as usize;
    let mut channels: Vec<AnyChannel<FlatSamples>> = SUM_CHANNELS
        .iter()
        .enumerate()
        .map(|(k, name)| {
            let (channel, high) = (k / 2, k % 2 == 0);
            let values = (0..count)
                .map(|i| {
                    let sum = film.sums[3 * inside(i) + channel];
                    if high {
                        (sum >> 32) as u32
                    } else {
                        sum as u32
                    }
                })
                .collect();
            AnyChannel::new(*name, FlatSamples::U32(values))
        })
        .collect();
    let samples = (0..count).map(|i| film.samples[inside(i)]).collect();
    channels.push(AnyChannel::new(SAMPLES_CHANNEL, FlatSamples::U32(samples)));

    let mut attributes = LayerAttributes {
        layer_position: Vec2(window.x as i32, window.y as i32),
        ..LayerAttributes::default()
    };
    let parts: Vec<String> = film
        .parts
        .iter()
        .map(|p| {
            let t = p.tile;
            format!(
                "{} {} {} {} {} {}",
                t.x, t.y, t.width, t.height, p.first_sample, p.end_sample
            )
        })
        .collect();
    for (key, value) in [
        (FORMAT_KEY, FORMAT.to_string()),
        (DIGEST_KEY, film.fingerprint.digest()),
        (SETTINGS_KEY, film.fingerprint.lines.join("\n")),
        (PARTS_KEY, parts.join(";")),
    ] {
        attributes
            .other
            .insert(text(path, key)?, AttributeValue::Text(text(path, &value)?));
    }
    let layer = Layer::new(
        (window.width as usize, window.height as usize),
        attributes,
        Encoding::SMALL_FAST_LOSSLESS,
        AnyChannels::sort(channels.into()),
    );
    let mut image = Image::from_layer(layer);
    image.attributes.display_window = IntegerBounds::from_dimensions((film.width as usize, film.height as usize));
    image.write().to_file(path).map_err(|e| file_error(path, e))
}

fn header_text(path: &Path, attributes: &LayerAttributes, key: &str) -> std::result::Result<String, FilmError> {
    match attributes.other.get(&text(path, key)?) {
        Some(AttributeValue::Text(value)) => Ok(value.to_string()),
        _ => Err(file_error(
            path,
            format!("not a wavetrace partial film: no `{key}` in its header"),
        )),
    }
}

fn parse_parts(path: &Path, listed: &str) -> std::result::Result<Vec<Part>, FilmError> {
    if listed.split(';').count() > MAX_MERGED_PARTS {
        return Err(file_error(path, format!("it lists more than {MAX_MERGED_PARTS} parts")));
    }
    listed
        .split(';')
        .map(|entry| {
            let numbers: Vec<u32> = entry.split(' ').filter_map(|n| n.parse().ok()).collect();
            match numbers[..] {
                [x, y, width, height, first_sample, end_sample] if first_sample < end_sample => Ok(Part {
                    tile: Crop { x, y, width, height },
                    first_sample,
                    end_sample,
                }),
                _ => Err(file_error(
                    path,
                    format!("a part `{entry}` in its header is not x y w h first end"),
                )),
            }
        })
        .collect()
}

/// The image size of a partial film's header (its display window, from (0, 0)), once every
/// layer's data window is known to lie inside it and to be of a size the reader may allocate.
fn check_windows(meta: &exr::meta::MetaData) -> std::result::Result<(u32, u32), String> {
    crate::input::check_exr_meta(meta)?;
    let header = meta.headers.first().ok_or("no layer")?;
    let display = header.shared_attributes.display_window;
    let (width, height) = (display.size.width() as u32, display.size.height() as u32);
    crate::input::check_image_size(width, height)?;
    if display.position != Vec2(0, 0) {
        return Err("its display window does not start at (0, 0)".into());
    }
    // The reader allocates every layer's data window before a pixel is read: each must lie
    // inside the display window (the image).
    for header in &meta.headers {
        let position = header.own_attributes.layer_position;
        let window = Crop {
            x: u32::try_from(position.x()).unwrap_or(u32::MAX),
            y: u32::try_from(position.y()).unwrap_or(u32::MAX),
            width: u32::try_from(header.layer_size.width()).unwrap_or(u32::MAX),
            height: u32::try_from(header.layer_size.height()).unwrap_or(u32::MAX),
        };
        if !window.fits(width, height) {
            return Err("a data window lies outside its display window".into());
        }
    }
    Ok((width, height))
}

pub fn read_partial(path: &Path) -> std::result::Result<PartialFilm, FilmError> {
    crate::input::check_regular_file(path).map_err(|e| file_error(path, e))?;
    // The film is allocated from the header's sizes, so those are checked first.
    let meta = exr::meta::MetaData::read_from_file(path, false).map_err(|e| file_error(path, e))?;
    let (width, height) = check_windows(&meta).map_err(|e| file_error(path, e))?;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .all_channels()
        .first_valid_layer()
        .all_attributes()
        .from_file(path)
        .map_err(|e| file_error(path, e))?;
    let layer = &image.layer_data;
    if header_text(path, &layer.attributes, FORMAT_KEY)? != FORMAT {
        return Err(file_error(path, format!("not a `{FORMAT}`")));
    }
    let window = Crop {
        x: u32::try_from(layer.attributes.layer_position.x()).unwrap_or(u32::MAX),
        y: u32::try_from(layer.attributes.layer_position.y()).unwrap_or(u32::MAX),
        width: layer.size.width() as u32,
        height: layer.size.height() as u32,
    };
    if !window.fits(width, height) {
        return Err(file_error(path, "its data window lies outside its display window"));
    }
    let channel = |name: &str| -> std::result::Result<&Vec<u32>, FilmError> {
        match layer
            .channel_data
            .list
            .iter()
            .find(|c| c.name.eq(name))
            .map(|c| &c.sample_data)
        {
            Some(FlatSamples::U32(values)) if values.len() == window.pixels() as usize => Ok(values),
            Some(_) => Err(file_error(path, format!("channel `{name}` is not 32-bit unsigned"))),
            None => Err(file_error(path, format!("no channel `{name}`"))),
        }
    };
    let halves: Vec<&Vec<u32>> = SUM_CHANNELS
        .iter()
        .map(|name| channel(name))
        .collect::<std::result::Result<_, _>>()?;
    let samples_in = channel(SAMPLES_CHANNEL)?;
    let pixels = width as usize * height as usize;
    let mut sums = vec![0u64; 3 * pixels];
    let mut samples = vec![0u32; pixels];
    for index in 0..window.pixels() as usize {
        let (x, y) = (
            window.x as usize + index % window.width as usize,
            window.y as usize + index / window.width as usize,
        );
        let pixel = y * width as usize + x;
        for c in 0..3 {
            sums[3 * pixel + c] = (u64::from(halves[2 * c][index]) << 32) | u64::from(halves[2 * c + 1][index]);
        }
        samples[pixel] = samples_in[index];
    }
    let settings = header_text(path, &layer.attributes, SETTINGS_KEY)?;
    let fingerprint = Fingerprint {
        lines: settings.split('\n').map(str::to_string).collect(),
    };
    if fingerprint.digest() != header_text(path, &layer.attributes, DIGEST_KEY)? {
        return Err(file_error(
            path,
            "its settings do not hash to its fingerprint: the header was edited",
        ));
    }
    let parts = parse_parts(path, &header_text(path, &layer.attributes, PARTS_KEY)?)?;
    if let Some(part) = parts.iter().find(|p| !p.tile.fits(width, height)) {
        return Err(file_error(path, format!("its part {part} lies outside the image")));
    }
    Ok(PartialFilm {
        width,
        height,
        sums,
        samples,
        fingerprint,
        parts,
    })
}

/// Reads and merges partial films, `threads` files at a time: each thread adds up its share
/// of the files, then the shares are added (integer sums: the order does not matter). Errors
/// name the file at fault.
pub fn merge_files(paths: &[std::path::PathBuf], threads: usize) -> std::result::Result<PartialFilm, String> {
    let threads = threads.clamp(1, paths.len().max(1));
    let shares: Vec<std::result::Result<Option<(String, PartialFilm)>, String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let share: Vec<&std::path::PathBuf> = paths.iter().skip(t).step_by(threads).collect();
                scope.spawn(move || merge_share(&share))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a merging thread panicked".into())))
            .collect()
    });
    let mut named = Vec::new();
    for share in shares {
        if let Some(film) = share? {
            named.push(film);
        }
    }
    super::partial::merge(named).map_err(|e| e.to_string())
}

/// One thread's files merged, named by the first.
fn merge_share(paths: &[&std::path::PathBuf]) -> std::result::Result<Option<(String, PartialFilm)>, String> {
    let mut merger = Merger::default();
    for path in paths {
        let film = read_partial(path).map_err(|e| e.to_string())?;
        merger
            .add(path.display().to_string(), film)
            .map_err(|e| e.to_string())?;
    }
    Ok(merger.finish())
}
