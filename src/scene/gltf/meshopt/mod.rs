//! EXT_meshopt_compression (what gltf-transform and gltfpack write by default) and its
//! successor KHR_meshopt_compression (version 1 attribute streams, the COLOR filter): a buffer view
//! whose bytes a compressed stream holds is decoded, once, into the place the view has in its
//! own buffer, so that accessors, animations and instancing read it as plain data. The
//! buffer it falls back to is not read (it may be a placeholder of declared length only, or a
//! file not shipped): it is made of the decoded views alone.

mod codecs;
mod filters;

use codecs::{decode_attributes, decode_indices, decode_triangles};

use std::collections::HashSet;

use serde_json::Value;

pub const EXTENSION: &str = "EXT_meshopt_compression";
pub const KHR_EXTENSION: &str = "KHR_meshopt_compression";

/// A stream decodes to at most this many times its own size: a version 0 attribute block of
/// 256 elements whose groups are all zero deltas (four header bytes a column), and in version 1
/// a block of 256 4-byte elements whose one control byte says all its columns are zero. A view
/// that claims more is refused before anything is allocated for it.
const MOST_EXPANSION: [usize; 2] = [64, 1024];

/// How a compressed view's stream is laid out (the extension's `mode`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    Attributes,
    Triangles,
    Indices,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Filter {
    None,
    Octahedral,
    Quaternion,
    Exponential,
    /// KHR_meshopt_compression's alone.
    Color,
}

/// One view's extension object, checked against its view as the specification requires.
struct Compressed {
    /// The newest attribute stream version the extension allows: 0 for EXT, 1 for KHR.
    newest_version: u8,
    buffer: usize,
    offset: usize,
    length: usize,
    stride: usize,
    count: usize,
    mode: Mode,
    filter: Filter,
}

/// The object of whichever of the two extensions an element carries, and its name.
fn extension_of(extensions: Option<&serde_json::Map<String, Value>>) -> Option<(&Value, &'static str)> {
    let extensions = extensions?;
    [KHR_EXTENSION, EXTENSION]
        .into_iter()
        .find_map(|name| extensions.get(name).map(|e| (e, name)))
}

/// The buffers that only compressed views fill, which are not read even where they name a file
/// (the specification lets a reader skip them; gltfpack's `-cf` fallbacks are full copies, and
/// files are shipped without them): those the file tags as fallbacks, and those whose every
/// view is compressed, unless a stream is stored in them. A .glb's first buffer without a URI
/// is its binary chunk, never a placeholder.
pub fn placeholder_buffers(document: &gltf::Document, is_glb: bool) -> HashSet<usize> {
    let tagged = document.buffers().filter(|b| {
        extension_of(b.extensions())
            .and_then(|(e, _)| e.get("fallback"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
    });
    let views_of = |compressed: bool| {
        document
            .views()
            .filter(move |v| extension_of(v.extensions()).is_some() == compressed)
            .map(|v| v.buffer())
    };
    let plain: HashSet<usize> = views_of(false).map(|b| b.index()).collect();
    let streams: HashSet<u64> = document
        .views()
        .filter_map(|v| extension_of(v.extensions())?.0.get("buffer")?.as_u64())
        .collect();
    tagged
        .chain(views_of(true).filter(|b| !plain.contains(&b.index())))
        .filter(|b| !streams.contains(&(b.index() as u64)))
        .filter(|b| !(is_glb && b.index() == 0 && matches!(b.source(), gltf::buffer::Source::Bin)))
        .map(|b| b.index())
        .collect()
}

/// Decodes every compressed view into its place in its own buffer, making a placeholder
/// buffer (`None`) as long as its views reach. A view whose stream's buffer could not be read
/// is left as its buffer has it. Errors name the view and what is wrong with it.
pub fn decode_views(document: &gltf::Document, buffers: &mut [Option<Vec<u8>>]) -> Result<(), String> {
    // A placeholder is made only as long as its views need, laid out with room for alignment:
    // a view far past them is refused rather than a gap allocated for it.
    let made: Vec<bool> = buffers.iter().map(Option::is_none).collect();
    let mut room = vec![4096usize; buffers.len()];
    for view in document.views().filter(|v| extension_of(v.extensions()).is_some()) {
        let r = &mut room[view.buffer().index()];
        *r = r.saturating_add(view.length().saturating_mul(2));
    }
    for view in document.views() {
        let Some((extension, name)) = extension_of(view.extensions()) else {
            continue;
        };
        let where_ = format!("bufferViews[{}] ({name})", view.index());
        let compressed = parse(extension, name == KHR_EXTENSION, &view, buffers.len())
            .map_err(|problem| format!("{where_}: {problem}"))?;
        let Some(source) = &buffers[compressed.buffer] else {
            continue;
        };
        let stream = compressed
            .offset
            .checked_add(compressed.length)
            .and_then(|end| source.get(compressed.offset..end))
            .ok_or_else(|| {
                format!(
                    "{where_}: bytes {}..+{} lie outside buffer {} ({} bytes)",
                    compressed.offset,
                    compressed.length,
                    compressed.buffer,
                    source.len()
                )
            })?;
        let decoded = decode(stream, &compressed).map_err(|problem| format!("{where_}: {problem}"))?;
        let parent = view.buffer().index();
        let (start, end) = (view.offset(), view.offset().saturating_add(view.length()));
        let limit = match &buffers[parent] {
            Some(data) if !made[parent] => data.len(),
            _ => room[parent].min(view.buffer().length()),
        };
        if end > limit {
            return Err(format!(
                "{where_}: the view ends at byte {end} of buffer {parent}, which holds {limit} for it"
            ));
        }
        let data = buffers[parent].get_or_insert_with(Vec::new);
        if data.len() < end {
            data.resize(end, 0);
        }
        data[start..end].copy_from_slice(&decoded);
    }
    Ok(())
}

fn parse(extension: &Value, khr: bool, view: &gltf::buffer::View, buffer_count: usize) -> Result<Compressed, String> {
    let number = |key: &str, default: Option<usize>| -> Result<usize, String> {
        match extension.get(key) {
            None => default.ok_or_else(|| format!("`{key}` is missing")),
            Some(v) => v
                .as_u64()
                .and_then(|n| usize::try_from(n).ok())
                .ok_or_else(|| format!("`{key}` is {v}, not a count")),
        }
    };
    let word = |key: &str, default: &'static str| -> Result<String, String> {
        match extension.get(key) {
            None => Ok(default.to_string()),
            Some(v) => v
                .as_str()
                .map(str::to_string)
                .ok_or_else(|| format!("`{key}` is {v}, not a name")),
        }
    };
    let mode = match word("mode", "")?.as_str() {
        "ATTRIBUTES" => Mode::Attributes,
        "TRIANGLES" => Mode::Triangles,
        "INDICES" => Mode::Indices,
        "" => return Err("`mode` is missing".into()),
        other => return Err(format!("mode {other:?} is none of ATTRIBUTES, TRIANGLES, INDICES")),
    };
    let filter = match word("filter", "NONE")?.as_str() {
        "NONE" => Filter::None,
        "OCTAHEDRAL" => Filter::Octahedral,
        "QUATERNION" => Filter::Quaternion,
        "EXPONENTIAL" => Filter::Exponential,
        "COLOR" if khr => Filter::Color,
        other => return Err(format!("filter {other:?} is none this extension has")),
    };
    let compressed = Compressed {
        newest_version: u8::from(khr),
        buffer: number("buffer", None)?,
        offset: number("byteOffset", Some(0))?,
        length: number("byteLength", None)?,
        stride: number("byteStride", None)?,
        count: number("count", None)?,
        mode,
        filter,
    };
    if compressed.buffer >= buffer_count {
        return Err(format!(
            "buffer {} does not exist ({buffer_count} buffers)",
            compressed.buffer
        ));
    }
    if view.stride().is_some_and(|s| s != compressed.stride) {
        return Err(format!(
            "byteStride {} differs from the view's {}",
            compressed.stride,
            view.stride().unwrap_or(0)
        ));
    }
    if compressed.count.checked_mul(compressed.stride) != Some(view.length()) {
        return Err(format!(
            "{} elements of {} bytes are not the view's {} bytes",
            compressed.count,
            compressed.stride,
            view.length()
        ));
    }
    let stride_fits = match (mode, filter) {
        (Mode::Attributes, Filter::None | Filter::Exponential) => {
            compressed.stride % 4 == 0 && compressed.stride <= 256
        }
        (Mode::Attributes, Filter::Octahedral | Filter::Color) => matches!(compressed.stride, 4 | 8),
        (Mode::Attributes, Filter::Quaternion) => compressed.stride == 8,
        (Mode::Triangles | Mode::Indices, Filter::None) => matches!(compressed.stride, 2 | 4),
        (Mode::Triangles | Mode::Indices, _) => return Err(format!("{mode:?} cannot take the {filter:?} filter")),
    };
    if !stride_fits || compressed.stride == 0 {
        return Err(format!(
            "a stride of {} bytes does not suit {mode:?} with the {filter:?} filter",
            compressed.stride
        ));
    }
    if mode == Mode::Triangles && compressed.count % 3 != 0 {
        return Err(format!("{} indices are not whole triangles", compressed.count));
    }
    if view.length()
        > compressed
            .length
            .saturating_mul(MOST_EXPANSION[usize::from(compressed.newest_version)])
    {
        return Err(format!(
            "{} bytes cannot decode to the view's {} bytes",
            compressed.length,
            view.length()
        ));
    }
    Ok(compressed)
}

fn decode(stream: &[u8], c: &Compressed) -> Result<Vec<u8>, String> {
    let indices = match c.mode {
        Mode::Attributes => {
            let mut data = decode_attributes(stream, c.count, c.stride, c.newest_version)?;
            match c.filter {
                Filter::None => {}
                Filter::Octahedral => filters::octahedral(&mut data, c.stride)?,
                Filter::Quaternion => filters::quaternion(&mut data, c.stride)?,
                Filter::Exponential => filters::exponential(&mut data, c.stride)?,
                Filter::Color => filters::color(&mut data, c.stride)?,
            }
            return Ok(data);
        }
        Mode::Triangles => decode_triangles(stream, c.count)?,
        Mode::Indices => decode_indices(stream, c.count)?,
    };
    // The reference decoders keep an index's low 16 bits where the view holds 16-bit ones.
    Ok(if c.stride == 2 {
        indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect()
    } else {
        indices.iter().flat_map(|&i| i.to_le_bytes()).collect()
    })
}

#[cfg(test)]
mod tests;
