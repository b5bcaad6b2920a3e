//! Reading accessors: every byte range is computed with checked arithmetic and checked against
//! its buffer view and buffer before anything is read, so an offset near 2^64 or a count past
//! the data is an error naming the accessor, never a wrap or a panic. An accessor without a
//! buffer view is zeros, and sparse substitutions are applied, as the specification says.
//! Integer components (KHR_mesh_quantization, 8- and 16-bit texture coordinates) are read as
//! floats, scaled to [0, 1] or [-1, 1] where the accessor is `normalized`.

use gltf::accessor::{DataType, Dimensions};

/// An accessor without data (zeros) may not decode to more bytes than this: nothing bounds it
/// but the count, and a hostile count would otherwise allocate without limit (22 M positions,
/// 4 M matrices).
const MAX_BYTES_WITHOUT_DATA: usize = 1 << 28;

/// Every element of a vector accessor of `N` components, as floats.
pub(super) fn read_floats<const N: usize>(
    accessor: &gltf::Accessor,
    buffers: &[Option<Vec<u8>>],
) -> Result<Vec<[f32; N]>, String> {
    let components = accessor.dimensions().multiplicity();
    if components != N {
        return Err(format!(
            "accessor {} is {:?}, expected {N} components",
            accessor.index(),
            accessor.dimensions()
        ));
    }
    let data_type = accessor.data_type();
    if data_type == DataType::U32 {
        return Err(format!(
            "accessor {} has 32-bit integer components, which no vertex attribute may have",
            accessor.index()
        ));
    }
    let normalized = accessor.normalized();
    let size = data_type.size();
    read(accessor, buffers, [0.0; N], |bytes| {
        std::array::from_fn(|c| component(&bytes[c * size..(c + 1) * size], data_type, normalized))
    })
}

/// Every element of an index accessor (unsigned 8-, 16- or 32-bit scalars).
pub(super) fn read_indices(accessor: &gltf::Accessor, buffers: &[Option<Vec<u8>>]) -> Result<Vec<u32>, String> {
    let data_type = accessor.data_type();
    if accessor.dimensions() != Dimensions::Scalar || !matches!(data_type, DataType::U8 | DataType::U16 | DataType::U32)
    {
        return Err(format!(
            "index accessor {} is {:?} {:?}, expected unsigned 8-, 16- or 32-bit scalars",
            accessor.index(),
            accessor.dimensions(),
            data_type
        ));
    }
    read(accessor, buffers, 0, |bytes| unsigned(bytes, data_type))
}

fn unsigned(bytes: &[u8], data_type: DataType) -> u32 {
    match data_type {
        DataType::U8 => u32::from(bytes[0]),
        DataType::U16 => u32::from(u16::from_le_bytes([bytes[0], bytes[1]])),
        _ => u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
    }
}

fn component(bytes: &[u8], data_type: DataType, normalized: bool) -> f32 {
    let (value, max) = match data_type {
        DataType::F32 => return f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]),
        DataType::I8 => (f32::from(bytes[0] as i8), 127.0),
        DataType::U8 => (f32::from(bytes[0]), 255.0),
        DataType::I16 => (f32::from(i16::from_le_bytes([bytes[0], bytes[1]])), 32767.0),
        DataType::U16 => (f32::from(u16::from_le_bytes([bytes[0], bytes[1]])), 65535.0),
        DataType::U32 => (unsigned(bytes, data_type) as f32, u32::MAX as f32),
    };
    if normalized {
        (value / max).max(-1.0)
    } else {
        value
    }
}

/// Where an accessor's elements lie: the byte slice of the first one, and the stride.
struct Strided<'a> {
    bytes: &'a [u8],
    stride: usize,
}

/// The bytes of `view` from `offset` on, after checking that `count` elements of `element`
/// bytes at `stride` fit in the view and the view in its buffer.
fn strided<'a>(
    what: &str,
    view: &gltf::buffer::View,
    offset: usize,
    count: usize,
    element: usize,
    stride: usize,
    buffers: &'a [Option<Vec<u8>>],
) -> Result<Strided<'a>, String> {
    let buffer_index = view.buffer().index();
    let buffer = buffers
        .get(buffer_index)
        .and_then(Option::as_deref)
        .ok_or_else(|| format!("{what}: buffer {buffer_index} was not loaded"))?;
    let view_end = view.offset().checked_add(view.length());
    let Some(view_bytes) = view_end.and_then(|end| buffer.get(view.offset()..end)) else {
        return Err(format!(
            "buffer view {} (bytes {} + {}) lies past the end of buffer {buffer_index} ({} bytes)",
            view.index(),
            view.offset(),
            view.length(),
            buffer.len()
        ));
    };
    let needed = match count {
        0 => Some(0),
        _ => stride
            .checked_mul(count - 1)
            .and_then(|n| n.checked_add(element))
            .and_then(|n| n.checked_add(offset)),
    };
    match needed {
        Some(needed) if needed <= view_bytes.len() => Ok(Strided {
            bytes: &view_bytes[offset.min(view_bytes.len())..],
            stride,
        }),
        _ => Err(format!(
            "{what} reads {count} elements of {element} bytes every {stride} from byte {offset}, past the end of buffer view {} ({} bytes)",
            view.index(),
            view.length()
        )),
    }
}

fn read<T: Copy>(
    accessor: &gltf::Accessor,
    buffers: &[Option<Vec<u8>>],
    zero: T,
    decode: impl Fn(&[u8]) -> T,
) -> Result<Vec<T>, String> {
    let index = accessor.index();
    let what = format!("accessor {index}");
    let count = accessor.count();
    let element = accessor.size();
    let mut elements = match accessor.view() {
        Some(view) => {
            let stride = view.stride().unwrap_or(element);
            if stride < element {
                return Err(format!(
                    "buffer view {} has a stride of {stride} bytes, less than accessor {index}'s {element}-byte elements",
                    view.index()
                ));
            }
            let data = strided(&what, &view, accessor.offset(), count, element, stride, buffers)?;
            (0..count)
                .map(|i| decode(&data.bytes[i * data.stride..i * data.stride + element]))
                .collect()
        }
        None if count.saturating_mul(std::mem::size_of::<T>()) > MAX_BYTES_WITHOUT_DATA => {
            return Err(format!(
                "{what} has no buffer view but claims {count} elements, over {MAX_BYTES_WITHOUT_DATA} bytes of zeros"
            ))
        }
        None => vec![zero; count],
    };
    if let Some(sparse) = accessor.sparse() {
        let substitutions = sparse.count();
        if substitutions > count {
            return Err(format!(
                "{what}: {substitutions} sparse substitutions for {count} elements"
            ));
        }
        let indices = sparse.indices();
        let index_type = match indices.index_type() {
            gltf::accessor::sparse::IndexType::U8 => DataType::U8,
            gltf::accessor::sparse::IndexType::U16 => DataType::U16,
            gltf::accessor::sparse::IndexType::U32 => DataType::U32,
        };
        let index_size = index_type.size();
        let sparse_what = format!("{what}'s sparse indices");
        let at = strided(
            &sparse_what,
            &indices.view(),
            indices.offset(),
            substitutions,
            index_size,
            index_size,
            buffers,
        )?;
        let values = sparse.values();
        let values_what = format!("{what}'s sparse values");
        let values = strided(
            &values_what,
            &values.view(),
            values.offset(),
            substitutions,
            element,
            element,
            buffers,
        )?;
        for i in 0..substitutions {
            let target = unsigned(&at.bytes[i * index_size..(i + 1) * index_size], index_type) as usize;
            let slot = elements
                .get_mut(target)
                .ok_or_else(|| format!("{what}: sparse index {target} is past its {count} elements"))?;
            *slot = decode(&values.bytes[i * element..(i + 1) * element]);
        }
    }
    Ok(elements)
}
