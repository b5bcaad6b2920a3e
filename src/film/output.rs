//! EXR and PNG files. EXR is what comparisons read; PNG is for looking at.

use std::path::{Path, PathBuf};

use super::tone_map::Display;
use super::RgbImage;

#[derive(Debug, thiserror::Error)]
pub enum FilmError {
    #[error("{path}: {problem}")]
    File { path: PathBuf, problem: String },
    #[error("{path}: unsupported output format (use .exr or .png)")]
    UnsupportedFormat { path: PathBuf },
}

fn file_error(path: &Path, problem: impl ToString) -> FilmError {
    FilmError::File {
        path: path.to_path_buf(),
        problem: problem.to_string(),
    }
}

/// Writes by extension: `.exr` (linear float32) or `.png` (as `display` shows it).
pub fn write_image(path: &Path, image: &RgbImage, display: &Display) -> Result<(), FilmError> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("exr") => write_exr(path, image),
        Some("png") => write_png(path, image, display),
        _ => Err(FilmError::UnsupportedFormat {
            path: path.to_path_buf(),
        }),
    }
}

pub fn write_exr(path: &Path, image: &RgbImage) -> Result<(), FilmError> {
    use exr::prelude::*;
    let channels = SpecificChannels::rgb(|position: Vec2<usize>| {
        let [r, g, b] = image.pixel(position.x(), position.y());
        (r, g, b)
    });
    Image::from_channels((image.width, image.height), channels)
        .write()
        .to_file(path)
        .map_err(|e| file_error(path, e))
}

/// Reads the first RGB(A) layer of an EXR as linear float RGB; alpha is dropped.
pub fn read_exr(path: &Path) -> Result<RgbImage, FilmError> {
    use exr::prelude::*;
    // The image is allocated from the header's size, so that size is checked first.
    crate::input::check_regular_file(path).map_err(|e| file_error(path, e))?;
    let meta = exr::meta::MetaData::read_from_file(path, false).map_err(|e| file_error(path, e))?;
    crate::input::check_exr_meta(&meta).map_err(|e| file_error(path, e))?;
    let image = read_first_rgba_layer_from_file(
        path,
        |resolution, _| RgbImage::new(resolution.width(), resolution.height()),
        |image: &mut RgbImage, position, (r, g, b, _a): (f32, f32, f32, f32)| {
            let width = image.width;
            image.pixels[position.y() * width + position.x()] = [r, g, b];
        },
    )
    .map_err(|e| file_error(path, e))?;
    Ok(image.layer_data.channel_data.pixels)
}

/// Writes what `display` shows of the image: 8-bit sRGB.
pub fn write_png(path: &Path, image: &RgbImage, display: &Display) -> Result<(), FilmError> {
    let file = std::fs::File::create(path).map_err(|e| file_error(path, e))?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), image.width as u32, image.height as u32);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_source_srgb(png::SrgbRenderingIntent::Perceptual);
    let mut writer = encoder.write_header().map_err(|e| file_error(path, e))?;
    let bytes = display.encode_image(image);
    writer.write_image_data(&bytes).map_err(|e| file_error(path, e))?;
    writer.finish().map_err(|e| file_error(path, e))
}
