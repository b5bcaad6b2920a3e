//! Reading input that may be hostile: only regular files are opened (a FIFO would block
//! forever, `/dev/zero` never ends), and images are sized from their headers and decoded
//! under limits, so that a header claiming 100000 x 100000 pixels is an error before any
//! memory is taken.

use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::Path;

/// The most pixels an image of the scene may decode to (1 GiB of RGBA8, 3 GiB of float RGB).
pub const MAX_IMAGE_PIXELS: u64 = 1 << 28;
/// The most bytes a decoder may allocate for an image, or an OpenEXR layer or block.
pub const MAX_DECODED_BYTES: u64 = MAX_IMAGE_PIXELS * 16;

/// The whole of a regular file. Anything else (a directory, FIFO, socket or device) is
/// refused without being opened for reading.
pub fn read_regular_file(path: &Path) -> Result<Vec<u8>, String> {
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(format!("not a regular file ({})", file_kind(&metadata)));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|file| file.take(metadata.len()).read_to_end(&mut bytes))
        .map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Fails unless `path` is a regular file (for readers that open the file themselves).
pub fn check_regular_file(path: &Path) -> Result<(), String> {
    let metadata = std::fs::metadata(path).map_err(|e| e.to_string())?;
    if metadata.is_file() {
        Ok(())
    } else {
        Err(format!("not a regular file ({})", file_kind(&metadata)))
    }
}

fn file_kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_dir() {
        "a directory"
    } else if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else {
        "not a plain file"
    }
}

/// Decodes an image held in memory (format from its first bytes) after checking the size its
/// header declares.
pub fn decode_image(bytes: &[u8]) -> Result<image::DynamicImage, String> {
    let format = image::guess_format(bytes).map_err(|e| e.to_string())?;
    decode_checked(std::io::Cursor::new(bytes), format)
}

/// Decodes an image file after checking that it is a regular file and the size its header
/// declares.
pub fn decode_image_file(path: &Path, format: image::ImageFormat) -> Result<image::DynamicImage, String> {
    check_regular_file(path)?;
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    decode_checked(std::io::BufReader::new(file), format)
}

fn decode_checked<R: BufRead + Seek>(mut source: R, format: image::ImageFormat) -> Result<image::DynamicImage, String> {
    if format == image::ImageFormat::OpenExr {
        return decode_exr_data_window(source);
    }
    let start = source.stream_position().map_err(|e| e.to_string())?;
    // The header is read twice, once for the size and once to decode: cheap next to a decode,
    // and the only way to refuse before the decoder allocates.
    let (width, height) = image::ImageReader::with_format(&mut source, format)
        .into_dimensions()
        .map_err(|e| e.to_string())?;
    check_image_size(width, height)?;
    source.seek(SeekFrom::Start(start)).map_err(|e| e.to_string())?;
    let mut reader = image::ImageReader::with_format(source, format);
    // The decoder's default limit (512 MiB) would refuse large but reasonable panoramas; the
    // pixel count is already bounded above.
    let mut limits = image::Limits::no_limits();
    limits.max_alloc = Some(MAX_DECODED_BYTES);
    reader.limits(limits);
    reader.decode().map_err(|e| e.to_string())
}

/// The first layer of an OpenEXR file with R, G and B channels, as RGBA (alpha 1 where the
/// file has none), the size of its data window: the pixels the file holds, as pbrt and most
/// renderers read them, and as `film::read_exr` does. The image crate's decoder would place
/// them in the display window, which a header of a few bytes may make 2^28 pixels of black
/// around 64 x 64 of data (a fuzzed file took 11 s and 6 GB that way).
fn decode_exr_data_window<R: BufRead + Seek>(mut source: R) -> Result<image::DynamicImage, String> {
    use exr::prelude::*;
    let start = source.stream_position().map_err(|e| e.to_string())?;
    let meta = exr::meta::MetaData::read_from_buffered(&mut source, false).map_err(|e| e.to_string())?;
    check_exr_meta(&meta)?;
    source.seek(SeekFrom::Start(start)).map_err(|e| e.to_string())?;
    let image = read()
        .no_deep_data()
        .largest_resolution_level()
        .rgba_channels(
            |size, _| image::Rgba32FImage::new(size.width() as u32, size.height() as u32),
            |pixels: &mut image::Rgba32FImage, position, (r, g, b, a): (f32, f32, f32, f32)| {
                pixels.put_pixel(position.x() as u32, position.y() as u32, image::Rgba([r, g, b, a]));
            },
        )
        .first_valid_layer()
        .all_attributes()
        .from_buffered(source)
        .map_err(|e| e.to_string())?;
    Ok(image::DynamicImage::ImageRgba32F(image.layer_data.channel_data.pixels))
}

/// Refuses empty images and images over `MAX_IMAGE_PIXELS`, with checked arithmetic.
pub fn check_image_size(width: u32, height: u32) -> Result<(), String> {
    if width == 0 || height == 0 {
        return Err(format!("{width}x{height} pixels: the image is empty"));
    }
    if u64::from(width) * u64::from(height) > MAX_IMAGE_PIXELS {
        return Err(format!(
            "{width}x{height} pixels: more than wavetrace takes ({MAX_IMAGE_PIXELS} pixels)"
        ));
    }
    Ok(())
}

/// Refuses an OpenEXR file whose layers (data windows), or whose blocks, would decode to more
/// than `MAX_DECODED_BYTES`, and deep data: the exr crate allocates a layer from its header and
/// a block from the header's block size before reading either, and an allocation it cannot
/// make aborts the process (a fuzzed file whose data window passed its display window asked
/// for 25.8 GB). Checked arithmetic throughout: the header's sizes are the file's word.
pub fn check_exr_meta(meta: &exr::meta::MetaData) -> Result<(), String> {
    use exr::meta::BlockDescription;
    for (index, header) in meta.headers.iter().enumerate() {
        if header.deep {
            return Err(format!("layer {index} holds deep data, which wavetrace does not read"));
        }
        let (width, height) = (header.layer_size.width() as u64, header.layer_size.height() as u64);
        let bytes_per_pixel: u64 = header
            .channels
            .list
            .iter()
            .map(|c| c.sample_type.bytes_per_sample() as u64)
            .sum();
        let block_pixels = match header.blocks {
            BlockDescription::ScanLines => (header.compression.scan_lines_per_block() as u64).checked_mul(width),
            BlockDescription::Tiles(tiles) => {
                (tiles.tile_size.width() as u64).checked_mul(tiles.tile_size.height() as u64)
            }
        };
        let too_large = |pixels: Option<u64>| {
            pixels
                .and_then(|p| p.checked_mul(bytes_per_pixel))
                .is_none_or(|bytes| bytes > MAX_DECODED_BYTES)
        };
        let layer = width.checked_mul(height);
        if layer.is_none_or(|p| p == 0 || p > MAX_IMAGE_PIXELS) || too_large(layer) {
            return Err(format!(
                "layer {index}: a data window of {width}x{height} pixels of {bytes_per_pixel} bytes: more than wavetrace \
                 takes ({MAX_IMAGE_PIXELS} pixels, {MAX_DECODED_BYTES} bytes)"
            ));
        }
        if too_large(block_pixels) {
            return Err(format!(
                "layer {index}: blocks of {} pixels of {bytes_per_pixel} bytes: more than wavetrace takes \
                 ({MAX_DECODED_BYTES} bytes)",
                block_pixels.map_or_else(|| "too many".to_string(), |p| p.to_string())
            ));
        }
    }
    Ok(())
}
