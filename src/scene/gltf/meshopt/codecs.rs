//! The three bitstreams of EXT_meshopt_compression and KHR_meshopt_compression (their
//! Appendix A), decoded from untrusted bytes: every read is bounds-checked, a stream that is cut
//! short, too long or of another version is an error, and none can make the decoder allocate
//! more than the caller's count of elements. Version 0 attribute streams and both index codecs
//! are accepted and refused exactly as meshoptimizer 0.22's decoders accept and refuse them
//! (tests.rs); version 1 attribute streams, which that release lacks, are checked against
//! gltfpack's files (tests/meshopt_compression.rs).

/// Elements of an attribute block are coded in groups of this many.
const GROUP: usize = 16;
/// An attribute block spans at most this many bytes of decoded data, and this many elements.
const BLOCK_BYTES: usize = 8192;
const BLOCK_ELEMENTS: usize = 256;
/// The most bytes one group of an attribute block may take (4 bits each, 16 escaped bytes);
/// the reference decoder refuses a group with fewer left, which the tail always leaves.
const GROUP_DECODE_LIMIT: usize = 24;
/// The attribute stream ends with its first element's baseline (and in version 1 the channel
/// modes), padded to at least this many bytes.
const ATTRIBUTE_TAIL: usize = 32;
const ATTRIBUTE_TAIL_V1: usize = 24;
/// The triangle stream ends with a 16-byte table; the index stream with 4 reserved bytes.
const TRIANGLE_TAIL: usize = 16;
const INDEX_TAIL: usize = 4;

/// A cursor over a stream that fails, instead of panicking, where the stream ends.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, String> {
        let byte = *self.bytes.get(self.at).ok_or("the stream ends inside its data")?;
        self.at += 1;
        Ok(byte)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&end| end <= self.bytes.len());
        let taken = &self.bytes[self.at..end.ok_or("the stream ends inside its data")?];
        self.at += n;
        Ok(taken)
    }

    fn left(&self) -> usize {
        self.bytes.len() - self.at
    }

    /// An unsigned LEB128 value of at most five bytes (the reference reads no more, whatever
    /// the fifth byte's top bit says).
    fn varint(&mut self) -> Result<u32, String> {
        let lead = self.byte()?;
        let mut value = u32::from(lead & 127);
        if lead < 128 {
            return Ok(value);
        }
        for shift in [7, 14, 21, 28] {
            let group = self.byte()?;
            value |= u32::from(group & 127).wrapping_shl(shift);
            if group < 128 {
                break;
            }
        }
        Ok(value)
    }
}

fn unzigzag8(v: u8) -> u8 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

fn unzigzag16(v: u16) -> u16 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

fn unzigzag32(v: u32) -> u32 {
    (v >> 1) ^ (v & 1).wrapping_neg()
}

fn check_header(stream: &[u8], expected: u8, newest_version: u8, what: &str) -> Result<(), String> {
    let header = stream.first().copied().unwrap_or(0);
    if header & 0xf0 != expected {
        return Err(format!(
            "the {what} stream's header byte is {header:#04x}, not {expected:#04x} and a version"
        ));
    }
    if header & 0x0f > newest_version {
        return Err(format!(
            "the {what} stream is of version {}, newer than {newest_version}",
            header & 0x0f
        ));
    }
    Ok(())
}

/// The bit widths a group's two header bits select: version 0's, and version 1's under a
/// byte's control modes 0 and 1.
const WIDTHS_V0: [usize; 4] = [0, 2, 4, 8];
const WIDTHS_V1: [[usize; 4]; 2] = [[0, 1, 2, 4], [1, 2, 4, 8]];

/// Mode 0 (ATTRIBUTES): `count` elements of `stride` bytes (a multiple of 4, at most 256), of
/// version 0 (EXT_meshopt_compression's) or, up to `newest_version`, 1 (KHR_meshopt_compression
/// adds per-byte control modes and per-channel 16-bit and XOR deltas).
pub fn decode_attributes(stream: &[u8], count: usize, stride: usize, newest_version: u8) -> Result<Vec<u8>, String> {
    if stride == 0 || stride % 4 != 0 || stride > 256 {
        return Err(format!(
            "a stride of {stride} bytes (must be a multiple of 4, at most 256)"
        ));
    }
    check_header(stream, 0xa0, newest_version, "attribute")?;
    let version = stream[0] & 0x0f;
    let channels = if version == 0 { 0 } else { stride / 4 };
    let tail_block = stride + channels;
    let tail = tail_block.max(if version == 0 {
        ATTRIBUTE_TAIL
    } else {
        ATTRIBUTE_TAIL_V1
    });
    if stream.len() < 1 + tail {
        return Err(format!(
            "{} bytes cannot hold an attribute stream of stride {stride}",
            stream.len()
        ));
    }
    let mut last = stream[stream.len() - tail_block..stream.len() - channels].to_vec();
    let modes = if version == 0 {
        vec![(0, 0); stride / 4]
    } else {
        channel_modes(&stream[stream.len() - channels..])?
    };
    let block_elements = ((BLOCK_BYTES / stride) & !(GROUP - 1)).min(BLOCK_ELEMENTS);
    let mut out = vec![0u8; count.checked_mul(stride).ok_or("too many elements")?];
    let mut reader = Reader { bytes: stream, at: 1 };
    // Each byte's deltas for a block: column `byte` holds BLOCK_ELEMENTS of them.
    let mut deltas = vec![0u8; stride * BLOCK_ELEMENTS];
    let mut first = 0;
    while first < count {
        let elements = block_elements.min(count - first);
        let groups = elements.div_ceil(GROUP);
        let control = if version == 0 {
            &[][..]
        } else {
            reader.take(stride / 4)?
        };
        for (byte, column) in deltas.chunks_exact_mut(BLOCK_ELEMENTS).enumerate() {
            let column = &mut column[..groups * GROUP];
            let widths = if version == 0 {
                WIDTHS_V0
            } else {
                match (control[byte / 4] >> ((byte % 4) * 2)) & 3 {
                    2 => {
                        column.fill(0);
                        continue;
                    }
                    3 => {
                        // Literal: the block's deltas as they are, not rounded up to groups.
                        column[..elements].copy_from_slice(reader.take(elements)?);
                        continue;
                    }
                    mode => WIDTHS_V1[usize::from(mode)],
                }
            };
            let header = reader.take(groups.div_ceil(4))?;
            for (group, deltas) in column.chunks_exact_mut(GROUP).enumerate() {
                if reader.left() < GROUP_DECODE_LIMIT {
                    return Err("the stream ends inside its data".into());
                }
                let bits = (header[group / 4] >> ((group % 4) * 2)) & 3;
                decode_group(&mut reader, widths[usize::from(bits)], deltas)?;
            }
        }
        let block = &mut out[first * stride..(first + elements) * stride];
        for (channel, &(mode, rotation)) in modes.iter().enumerate() {
            let bytes = channel * 4..channel * 4 + 4;
            undo_deltas(&deltas, block, stride, &mut last, bytes, mode, rotation);
        }
        first += elements;
    }
    if reader.left() != tail {
        return Err(format!(
            "the attribute data ends {} bytes before the stream's end, where its tail takes {tail}",
            reader.left()
        ));
    }
    Ok(out)
}

/// Version 1's channel modes (one byte per 4 bytes of an element): the low 4 bits 0 (byte
/// deltas), 1 (16-bit deltas) or 2 (32-bit XOR deltas, which the encoder turned left by the
/// high 4 bits).
fn channel_modes(bytes: &[u8]) -> Result<Vec<(u8, u32)>, String> {
    bytes
        .iter()
        .enumerate()
        .map(|(channel, &m)| match (m & 15, m >> 4) {
            (0 | 1, 0) | (2, _) => Ok((m & 15, u32::from(m >> 4))),
            _ => Err(format!("channel {channel}'s mode byte {m:#04x} is none the codec has")),
        })
        .collect()
}

/// Turns one channel's deltas (4 bytes of each element, `deltas` column-major) into values,
/// from `last` on, into `block`, leaving `last` the block's last element.
fn undo_deltas(
    deltas: &[u8],
    block: &mut [u8],
    stride: usize,
    last: &mut [u8],
    bytes: std::ops::Range<usize>,
    mode: u8,
    rotation: u32,
) {
    let elements = block.len() / stride;
    let delta = |byte: usize, i: usize| deltas[byte * BLOCK_ELEMENTS + i];
    match mode {
        0 => {
            for byte in bytes {
                for i in 0..elements {
                    last[byte] = last[byte].wrapping_add(unzigzag8(delta(byte, i)));
                    block[i * stride + byte] = last[byte];
                }
            }
        }
        1 => {
            for low in bytes.step_by(2) {
                let mut value = u16::from_le_bytes([last[low], last[low + 1]]);
                for i in 0..elements {
                    let d = u16::from_le_bytes([delta(low, i), delta(low + 1, i)]);
                    value = value.wrapping_add(unzigzag16(d));
                    block[i * stride + low..i * stride + low + 2].copy_from_slice(&value.to_le_bytes());
                }
                last[low..low + 2].copy_from_slice(&value.to_le_bytes());
            }
        }
        _ => {
            let at = bytes.start;
            let mut value = u32::from_le_bytes([last[at], last[at + 1], last[at + 2], last[at + 3]]);
            for i in 0..elements {
                let d = u32::from_le_bytes([delta(at, i), delta(at + 1, i), delta(at + 2, i), delta(at + 3, i)]);
                value ^= d.rotate_right(rotation);
                block[i * stride + at..i * stride + at + 4].copy_from_slice(&value.to_le_bytes());
            }
            last[at..at + 4].copy_from_slice(&value.to_le_bytes());
        }
    }
}

/// One group's 16 byte deltas of `width` bits each: none, 1, 2 or 4 bits (all bits set: the
/// byte follows the group's bits, in order; 1-bit codes fill their bytes from the low bit,
/// the others from the high), or 16 whole bytes.
fn decode_group(reader: &mut Reader, width: usize, deltas: &mut [u8]) -> Result<(), String> {
    match width {
        0 => deltas.fill(0),
        8 => deltas.copy_from_slice(reader.take(GROUP)?),
        _ => {
            let packed = reader.take(GROUP * width / 8)?;
            let sentinel = ((1u16 << width) - 1) as u8;
            let per_byte = 8 / width;
            for (i, delta) in deltas.iter_mut().enumerate() {
                let shift = if width == 1 {
                    i % 8
                } else {
                    8 - width * (i % per_byte + 1)
                };
                let code = (packed[i / per_byte] >> shift) & sentinel;
                *delta = if code == sentinel { reader.byte()? } else { code };
            }
        }
    }
    Ok(())
}

/// A 16-entry ring of the most recent edges or vertices; entry 0 is the newest.
struct Fifo<T: Copy> {
    entries: [T; 16],
    next: usize,
}

impl<T: Copy> Fifo<T> {
    fn push(&mut self, value: T) {
        self.entries[self.next] = value;
        self.next = (self.next + 1) & 15;
    }

    fn get(&self, age: usize) -> T {
        self.entries[(self.next + 15 - age) & 15]
    }
}

/// What the triangle codec remembers between triangles: the recent edges and vertices, the
/// next new index (`next`) and the last explicitly coded one (`last`).
struct TriangleState<'a> {
    data: Reader<'a>,
    table: &'a [u8],
    /// Codes of the vertex FIFO below this; version 0 had none for `last`'s neighbours.
    fifo_codes: usize,
    edges: Fifo<(u32, u32)>,
    vertices: Fifo<u32>,
    next: u32,
    last: u32,
}

impl TriangleState<'_> {
    fn fresh(&mut self) -> u32 {
        let index = self.next;
        self.next = self.next.wrapping_add(1);
        index
    }

    /// An index coded explicitly, as a zigzag delta from `last`.
    fn free(&mut self) -> Result<u32, String> {
        self.last = self.last.wrapping_add(unzigzag32(self.data.varint()?));
        Ok(self.last)
    }

    /// Codes below 0xf0: a recent edge (high nibble) and a third vertex (low nibble): new,
    /// recent, beside `last`, or explicit.
    fn edge_and_vertex(&mut self, code: u8) -> Result<[u32; 3], String> {
        let (a, b) = self.edges.get(usize::from(code >> 4));
        let fec = usize::from(code & 15);
        let c = if fec == 0 {
            let c = self.fresh();
            self.vertices.push(c);
            c
        } else if fec < self.fifo_codes {
            self.vertices.get(fec)
        } else {
            self.last = match fec {
                13 => self.last.wrapping_sub(1),
                14 => self.last.wrapping_add(1),
                _ => self.free()?,
            };
            self.vertices.push(self.last);
            self.last
        };
        self.edges.push((c, b));
        self.edges.push((a, c));
        Ok([a, b, c])
    }

    /// Codes from 0xf0: three vertices, each new, recent or (0xfe, 0xff) explicit, as the table
    /// entry or the next data byte says.
    fn three_vertices(&mut self, code: u8) -> Result<[u32; 3], String> {
        let escaped = code >= 0xfe;
        let aux = if escaped {
            self.data.byte()?
        } else {
            self.table[usize::from(code & 15)]
        };
        if escaped && aux == 0 {
            self.next = 0;
        }
        let (feb, fec) = (usize::from(aux >> 4), usize::from(aux & 15));
        let explicit_a = code == 0xff;
        // Every new index is handed out before any explicit one is read, as the encoder did.
        let a0 = if explicit_a { 0 } else { self.fresh() };
        let b0 = if feb == 0 {
            self.fresh()
        } else {
            self.vertices.get((feb - 1) & 15)
        };
        let c0 = if fec == 0 {
            self.fresh()
        } else {
            self.vertices.get((fec - 1) & 15)
        };
        let a = if explicit_a { self.free()? } else { a0 };
        let b = if escaped && feb == 15 { self.free()? } else { b0 };
        let c = if escaped && fec == 15 { self.free()? } else { c0 };
        self.vertices.push(a);
        if feb == 0 || (escaped && feb == 15) {
            self.vertices.push(b);
        }
        if fec == 0 || (escaped && fec == 15) {
            self.vertices.push(c);
        }
        self.edges.push((b, a));
        self.edges.push((c, b));
        self.edges.push((a, c));
        Ok([a, b, c])
    }
}

/// Mode 1 (TRIANGLES): `count` indices (a multiple of 3) of a triangle list.
pub fn decode_triangles(stream: &[u8], count: usize) -> Result<Vec<u32>, String> {
    if count % 3 != 0 {
        return Err(format!("{count} indices are not whole triangles"));
    }
    let triangles = count / 3;
    if stream.len() < 1 + triangles + TRIANGLE_TAIL {
        return Err(format!("{} bytes cannot hold {triangles} triangles", stream.len()));
    }
    check_header(stream, 0xe0, 1, "triangle")?;
    let data_end = stream.len() - TRIANGLE_TAIL;
    let mut state = TriangleState {
        data: Reader {
            bytes: &stream[..data_end],
            at: 1 + triangles,
        },
        table: &stream[data_end..],
        fifo_codes: if stream[0] & 0x0f >= 1 { 13 } else { 15 },
        edges: Fifo {
            entries: [(u32::MAX, u32::MAX); 16],
            next: 0,
        },
        vertices: Fifo {
            entries: [u32::MAX; 16],
            next: 0,
        },
        next: 0,
        last: 0,
    };
    let mut out = Vec::with_capacity(count);
    for &code in &stream[1..1 + triangles] {
        let triangle = if code < 0xf0 {
            state.edge_and_vertex(code)?
        } else {
            state.three_vertices(code)?
        };
        out.extend_from_slice(&triangle);
    }
    if state.data.left() != 0 {
        return Err(format!(
            "{} bytes of the triangle data are left over after the last triangle",
            state.data.left()
        ));
    }
    Ok(out)
}

/// Mode 2 (INDICES): `count` indices, each a delta from one of two baselines.
pub fn decode_indices(stream: &[u8], count: usize) -> Result<Vec<u32>, String> {
    if stream.len() < 1 + count + INDEX_TAIL {
        return Err(format!("{} bytes cannot hold {count} indices", stream.len()));
    }
    check_header(stream, 0xd0, 1, "index")?;
    let mut data = Reader {
        bytes: &stream[..stream.len() - INDEX_TAIL],
        at: 1,
    };
    let mut baselines = [0u32; 2];
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        let v = data.varint()?;
        let baseline = &mut baselines[(v & 1) as usize];
        *baseline = baseline.wrapping_add(unzigzag32(v >> 1));
        out.push(*baseline);
    }
    Ok(out)
}
