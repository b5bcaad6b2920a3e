//! The decoders against meshoptimizer's own encoder and decoder (the C++ reference, a
//! dev-dependency) on random data of awkward sizes, corrupted streams included, and the
//! filters against the specification's encodings done here.

use super::codecs::{decode_attributes, decode_indices, decode_triangles};
use super::filters;
use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

/// An element of N bytes, the shape meshoptimizer's vertex codec takes.
#[derive(Clone, Copy)]
#[repr(C)]
struct Element<const N: usize>([u8; N]);

impl<const N: usize> Default for Element<N> {
    fn default() -> Self {
        Self([0; N])
    }
}

/// Elements whose byte columns change by nothing, a little, more, or anything from one to the
/// next, so that every group width of the codec is taken.
fn elements<const N: usize>(rng: &mut SmallRng, count: usize) -> Vec<Element<N>> {
    let spreads: Vec<u8> = (0..N).map(|_| [0u8, 1, 6, 255][rng.random_range(0..4)]).collect();
    let mut current = [0u8; N];
    (0..count)
        .map(|_| {
            for (byte, &spread) in current.iter_mut().zip(&spreads) {
                let step = if spread == 0 { 0 } else { rng.random_range(0..=spread) };
                *byte = byte.wrapping_add(step).wrapping_sub(spread / 2);
            }
            Element(current)
        })
        .collect()
}

const COUNTS: [usize; 10] = [1, 2, 15, 16, 17, 255, 256, 257, 1000, 4099];

fn attributes_round_trip<const N: usize>(rng: &mut SmallRng) {
    for count in COUNTS {
        let data = elements::<N>(rng, count);
        let encoded = meshopt::encode_vertex_buffer(&data).unwrap();
        let decoded = decode_attributes(&encoded, count, N, 0).unwrap_or_else(|e| panic!("stride {N}, {count}: {e}"));
        let expected: Vec<u8> = data.iter().flat_map(|e| e.0).collect();
        assert_eq!(decoded, expected, "stride {N}, {count} elements");
    }
}

#[test]
fn attributes_decode_as_meshoptimizer_encoded_them() {
    let mut rng = SmallRng::seed_from_u64(5);
    attributes_round_trip::<4>(&mut rng);
    attributes_round_trip::<8>(&mut rng);
    attributes_round_trip::<12>(&mut rng);
    attributes_round_trip::<20>(&mut rng);
    attributes_round_trip::<32>(&mut rng);
    attributes_round_trip::<36>(&mut rng);
    attributes_round_trip::<100>(&mut rng);
    attributes_round_trip::<256>(&mut rng);
}

/// A grid's triangles (shared edges, as a mesh's are) then random ones (free indices), and a
/// second copy of the grid: meshoptimizer's encoder uses every kind of triangle code on them.
/// (It may turn a triangle's corners round, so decoded triangles equal these up to that.)
fn triangle_list(rng: &mut SmallRng, side: u32) -> Vec<u32> {
    let mut indices = Vec::new();
    for y in 0..side {
        for x in 0..side {
            let a = y * (side + 1) + x;
            let (b, c, d) = (a + 1, a + side + 1, a + side + 2);
            indices.extend_from_slice(&[a, b, d, a, d, c]);
        }
    }
    let vertices = (side + 1) * (side + 1);
    for _ in 0..side * 3 {
        indices.extend((0..3).map(|_| rng.random_range(0..vertices)));
    }
    let grid = indices[..(side * side * 6) as usize].to_vec();
    indices.extend(grid);
    indices
}

#[test]
fn triangles_decode_as_meshoptimizer_encoded_them() {
    let mut rng = SmallRng::seed_from_u64(7);
    for side in [1, 2, 7, 40] {
        let indices = triangle_list(&mut rng, side);
        let vertices = ((side + 1) * (side + 1)) as usize;
        let encoded = meshopt::encode_index_buffer(&indices, vertices).unwrap();
        let decoded = decode_triangles(&encoded, indices.len()).unwrap();
        let reference = meshopt::decode_index_buffer::<u32>(&encoded, indices.len()).unwrap();
        assert_eq!(decoded, reference, "side {side}");
        // The encoder may turn a triangle's corners round (its winding stays), nothing more.
        for (got, want) in decoded.chunks_exact(3).zip(indices.chunks_exact(3)) {
            let turns = [[0, 1, 2], [1, 2, 0], [2, 0, 1]].map(|r| r.map(|k| want[k]));
            assert!(
                turns.iter().any(|t| t == got),
                "side {side}: {got:?} is not {want:?} turned"
            );
        }
    }
}

/// The index codec as the specification describes it: a varint a delta, its low bit the
/// baseline, the next bit the delta's sign.
fn encode_index_sequence(indices: &[u32], baseline_of: impl Fn(usize) -> usize) -> Vec<u8> {
    let mut out = vec![0xd1];
    let mut last = [0u32; 2];
    for (i, &index) in indices.iter().enumerate() {
        let b = baseline_of(i);
        let delta = index.wrapping_sub(last[b]) as i32;
        last[b] = index;
        let zigzag = ((delta << 1) ^ (delta >> 31)) as u32;
        let mut v = (zigzag << 1) | b as u32;
        loop {
            let byte = (v & 127) as u8;
            v >>= 7;
            if v == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 128);
        }
    }
    out.extend_from_slice(&[0; 4]);
    out
}

#[test]
fn index_sequences_decode_as_the_specification_encodes_them() {
    let mut rng = SmallRng::seed_from_u64(9);
    for count in [0usize, 1, 3, 100, 1001] {
        let indices: Vec<u32> = (0..count)
            .map(|i| {
                if i % 2 == 0 {
                    i as u32 / 2
                } else {
                    rng.random_range(0..1u32 << 30)
                }
            })
            .collect();
        let encoded = encode_index_sequence(&indices, |i| i % 2);
        assert_eq!(decode_indices(&encoded, count).unwrap(), indices, "{count}");
        let mut cut = encoded.clone();
        cut.truncate(encoded.len() - 5);
        if count > 0 {
            assert!(decode_indices(&cut, count).is_err(), "{count}: a cut stream");
        }
    }
}

/// `stream` corrupted `rng`'s way: a byte changed, the stream cut, or bytes added.
fn corrupt(rng: &mut SmallRng, stream: &[u8]) -> Vec<u8> {
    let mut bad = stream.to_vec();
    match rng.random_range(0..4) {
        0 => {
            let at = rng.random_range(0..bad.len());
            bad[at] = rng.random();
        }
        1 => bad.truncate(rng.random_range(0..bad.len())),
        2 => bad.extend((0..rng.random_range(1..40)).map(|_| rng.random::<u8>())),
        _ => {
            for _ in 0..8 {
                let at = rng.random_range(0..bad.len());
                bad[at] ^= 1 << rng.random_range(0..8);
            }
        }
    }
    bad
}

fn corrupt_attributes_agree<const N: usize>(rng: &mut SmallRng) -> (usize, usize) {
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..300 {
        let count = COUNTS[round % COUNTS.len()];
        let data = elements::<N>(rng, count);
        let bad = corrupt(rng, &meshopt::encode_vertex_buffer(&data).unwrap());
        let ours = decode_attributes(&bad, count, N, 0);
        let theirs = meshopt::decode_vertex_buffer::<Element<N>>(&bad, count);
        match (&ours, &theirs) {
            (Ok(ours), Ok(theirs)) => {
                let theirs: Vec<u8> = theirs.iter().flat_map(|e| e.0).collect();
                assert_eq!(ours, &theirs, "stride {N}, round {round}");
                accepted += 1;
            }
            (Err(_), Err(_)) => refused += 1,
            _ => panic!(
                "stride {N}, round {round}: ours {:?}, meshoptimizer's {:?}",
                ours.is_ok(),
                theirs.is_ok()
            ),
        }
    }
    (accepted, refused)
}

/// Corrupted streams: decoded or refused exactly where meshoptimizer's decoders decode or
/// refuse them, and decoded to the same bytes; never a panic.
#[test]
fn corrupted_streams_are_refused_where_meshoptimizer_refuses_them() {
    let mut rng = SmallRng::seed_from_u64(11);
    let mut outcomes = vec![
        corrupt_attributes_agree::<4>(&mut rng),
        corrupt_attributes_agree::<12>(&mut rng),
        corrupt_attributes_agree::<32>(&mut rng),
    ];
    let (mut accepted, mut refused) = (0, 0);
    for round in 0..600 {
        let indices = triangle_list(&mut rng, 1 + round as u32 % 9);
        let vertices = indices.iter().max().map_or(0, |&m| m as usize + 1);
        let bad = corrupt(&mut rng, &meshopt::encode_index_buffer(&indices, vertices).unwrap());
        let ours = decode_triangles(&bad, indices.len());
        let theirs = meshopt::decode_index_buffer::<u32>(&bad, indices.len());
        match (&ours, &theirs) {
            (Ok(ours), Ok(theirs)) => {
                assert_eq!(ours, theirs, "round {round}");
                accepted += 1;
            }
            (Err(_), Err(_)) => refused += 1,
            _ => panic!(
                "triangles, round {round}: ours {:?}, meshoptimizer's {:?}",
                ours.is_ok(),
                theirs.is_ok()
            ),
        }
    }
    outcomes.push((accepted, refused));
    // Both outcomes occur for each codec, so that the agreement means something.
    for (i, &(accepted, refused)) in outcomes.iter().enumerate() {
        assert!(
            accepted > 10 && refused > 10,
            "codec {i}: {accepted} accepted, {refused} refused"
        );
    }
}

/// Unit vectors encoded as the specification's octahedral filter expects them (K-bit x and y
/// over 1.0 at K bits) come back within the encoding's precision.
#[test]
fn the_octahedral_filter_gives_back_unit_vectors() {
    let mut rng = SmallRng::seed_from_u64(13);
    for (stride, bits) in [(4usize, 8u32), (4, 6), (8, 16), (8, 12)] {
        let one = (1i32 << (bits - 1)) - 1;
        let mut data = Vec::new();
        let mut vectors = Vec::new();
        for _ in 0..500 {
            let v = glam::Vec3::new(
                rng.random_range(-1.0..1.0f32),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
            .normalize_or(glam::Vec3::Z);
            let l1 = v.x.abs() + v.y.abs() + v.z.abs();
            let (mut x, mut y) = (v.x / l1, v.y / l1);
            if v.z < 0.0 {
                (x, y) = ((1.0 - y.abs()) * x.signum(), (1.0 - x.abs()) * y.signum());
            }
            let q = |f: f32| (f * one as f32).round() as i32;
            let w = rng.random_range(-100..100);
            for c in [q(x), q(y), one, w] {
                if stride == 4 {
                    data.push(c as i8 as u8);
                } else {
                    data.extend_from_slice(&(c as i16).to_le_bytes());
                }
            }
            vectors.push((v, w));
        }
        filters::octahedral(&mut data, stride).unwrap();
        let (max, size) = if stride == 4 { (127.0, 1) } else { (32767.0, 2) };
        let read = |element: &[u8], i: usize| -> f32 {
            if size == 1 {
                f32::from(element[i] as i8)
            } else {
                f32::from(i16::from_le_bytes([element[2 * i], element[2 * i + 1]]))
            }
        };
        let tolerance = 4.0 / one as f32 + 1.0 / max;
        for (element, (v, w)) in data.chunks_exact(stride).zip(&vectors) {
            let decoded = glam::Vec3::new(read(element, 0), read(element, 1), read(element, 2)) / max;
            assert!(
                (decoded - *v).abs().max_element() < tolerance,
                "{bits} bits: {decoded} for {v}"
            );
            assert_eq!(read(element, 3) as i32, *w, "the fourth component passes through");
        }
    }
}

#[test]
fn the_quaternion_filter_gives_back_unit_quaternions() {
    let mut rng = SmallRng::seed_from_u64(17);
    for bits in [16u32, 12, 8] {
        let one = (1i32 << (bits - 1)) - 1;
        let mut data = Vec::new();
        let mut quaternions = Vec::new();
        for _ in 0..500 {
            let q = glam::Vec4::new(
                rng.random_range(-1.0..1.0f32),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
                rng.random_range(-1.0..1.0),
            )
            .normalize();
            let c = q.to_array();
            let largest = (0..4).max_by(|&a, &b| c[a].abs().total_cmp(&c[b].abs())).unwrap_or(0);
            // The largest component is positive in the encoding (q and -q are one rotation).
            let sign = c[largest].signum();
            let encode = |f: f32| (f * sign * std::f32::consts::SQRT_2 * one as f32).round() as i16;
            let rest = [1, 2, 3].map(|k| encode(c[(largest + k) % 4]));
            let fourth = ((one as i16) & !3) | largest as i16;
            for value in [rest[0], rest[1], rest[2], fourth] {
                data.extend_from_slice(&value.to_le_bytes());
            }
            quaternions.push(q * sign);
        }
        filters::quaternion(&mut data, 8).unwrap();
        let tolerance = 3.0 / one as f32 + 1.0 / 32767.0;
        for (element, q) in data.chunks_exact(8).zip(&quaternions) {
            let d = glam::Vec4::from_array(
                [0, 1, 2, 3].map(|i| f32::from(i16::from_le_bytes([element[2 * i], element[2 * i + 1]])) / 32767.0),
            );
            assert!((d - *q).abs().max_element() < tolerance, "{bits} bits: {d} for {q}");
        }
    }
}

#[test]
fn the_exponential_filter_gives_back_floats_exactly() {
    let mut rng = SmallRng::seed_from_u64(19);
    let mut data = Vec::new();
    let mut expected = Vec::new();
    for _ in 0..1000 {
        let exponent = rng.random_range(-100..=100i32);
        let mantissa = rng.random_range(-(1i32 << 23)..(1 << 23));
        data.extend_from_slice(&((exponent << 24) | (mantissa & 0xff_ffff)).to_le_bytes());
        expected.push((f64::from(mantissa) * 2f64.powi(exponent)) as f32);
    }
    filters::exponential(&mut data, 12).unwrap();
    for (bytes, &x) in data.chunks_exact(4).zip(&expected) {
        let got = f32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]);
        assert!(got == x || (got - x).abs() <= x.abs() * 1e-7, "{got} against {x}");
    }
}

/// A constant attribute compresses furthest: in version 0 to 1/64 of its size (4 header bytes
/// of zero groups a 256-element column), the bound `MOST_EXPANSION` refuses views beyond.
#[test]
fn a_constant_attribute_reaches_the_largest_expansion_and_no_further() {
    let count = 256 * 64;
    let data = vec![Element([7u8; 4]); count];
    let encoded = meshopt::encode_vertex_buffer(&data).unwrap();
    let ratio = (count * 4) as f64 / encoded.len() as f64;
    assert!(ratio > 50.0 && ratio <= super::MOST_EXPANSION[0] as f64, "{ratio}");
    assert_eq!(decode_attributes(&encoded, count, 4, 0).unwrap(), vec![7u8; count * 4]);
}

/// Version 1 goes further: a block whose control byte says every column is zero takes one
/// byte for 256 elements of 4 bytes. Built by hand as the specification lays it out (header,
/// control bytes, then the tail: padding, the baseline, the channel modes).
#[test]
fn a_version_1_stream_of_zero_columns_decodes_to_its_baseline_within_the_bound() {
    let blocks = 64;
    let mut stream = vec![0xa1];
    stream.extend(std::iter::repeat_n(0b1010_1010u8, blocks));
    stream.extend([0u8; 24 - 5]);
    stream.extend([1, 2, 3, 4, 0]);
    let count = 256 * blocks;
    let decoded = decode_attributes(&stream, count, 4, 1).unwrap();
    assert!(decoded.chunks_exact(4).all(|e| e == [1, 2, 3, 4]));
    assert!(count * 4 <= stream.len() * super::MOST_EXPANSION[1]);
    assert!(
        decode_attributes(&stream, count, 4, 0).is_err(),
        "version 1 is KHR's alone"
    );
}
