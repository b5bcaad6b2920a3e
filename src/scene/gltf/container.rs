//! The two containers of glTF: a `.gltf` is the JSON itself; a `.glb` is a 12-byte header and
//! chunks (JSON, then an optional binary buffer). Every length is checked against the bytes
//! there are, so a truncated file is named as truncated, with both numbers.

const GLB_MAGIC: &[u8; 4] = b"glTF";
const CHUNK_JSON: u32 = 0x4E4F_534A;
const CHUNK_BIN: u32 = 0x004E_4942;

/// The JSON text and, for a GLB with a binary chunk, that chunk's bytes.
pub(super) struct Container<'a> {
    pub json: &'a [u8],
    pub blob: Option<Vec<u8>>,
    pub is_glb: bool,
}

pub(super) fn split(bytes: &[u8]) -> Result<Container<'_>, String> {
    if !bytes.starts_with(GLB_MAGIC) {
        return Ok(Container {
            json: bytes,
            blob: None,
            is_glb: false,
        });
    }
    let word = |at: usize| bytes.get(at..at.checked_add(4)?).map(le_u32);
    let (Some(version), Some(length)) = (word(4), word(8)) else {
        return Err(format!(
            "GLB file of {} bytes, shorter than the 12-byte GLB header (truncated)",
            bytes.len()
        ));
    };
    if version != 2 {
        return Err(format!(
            "GLB version {version}; wavetrace reads glTF 2.0 (GLB version 2)"
        ));
    }
    let length = length as usize;
    if length > bytes.len() {
        return Err(format!(
            "the GLB header declares {length} bytes but the file has {} (truncated)",
            bytes.len()
        ));
    }
    // Bytes past the declared length (padding some tools append) are not part of the GLB.
    let glb = &bytes[..length];
    let mut chunks = Vec::new();
    let mut at = 12;
    while at < glb.len() {
        let header = glb.get(at..at + 8).ok_or_else(|| {
            format!(
                "GLB chunk {} at byte {at}: its 8-byte header is cut off (truncated)",
                chunks.len()
            )
        })?;
        let chunk_length = le_u32(&header[..4]) as usize;
        let chunk_type = le_u32(&header[4..]);
        let start = at + 8;
        let data = start
            .checked_add(chunk_length)
            .and_then(|end| glb.get(start..end))
            .ok_or_else(|| {
                format!(
                    "GLB chunk {} declares {chunk_length} bytes but only {} remain (truncated)",
                    chunks.len(),
                    glb.len() - start
                )
            })?;
        chunks.push((chunk_type, data));
        // Chunks are 4-byte aligned; a last chunk without its padding is still whole.
        at = (start + chunk_length).next_multiple_of(4);
    }
    let json = match chunks.first() {
        Some(&(CHUNK_JSON, json)) => json,
        Some(&(other, _)) => return Err(format!("the first GLB chunk must be JSON; it is of type 0x{other:08X}")),
        None => return Err("the GLB has no JSON chunk".into()),
    };
    // Chunks of unknown types are skipped, as the specification asks.
    let blob = chunks
        .iter()
        .skip(1)
        .find(|(kind, _)| *kind == CHUNK_BIN)
        .map(|(_, data)| data.to_vec());
    Ok(Container {
        json,
        blob,
        is_glb: true,
    })
}

/// A little-endian u32 from four bytes.
fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}
