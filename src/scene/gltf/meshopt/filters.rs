//! EXT_meshopt_compression's filters (its Appendix B), applied in place to decoded attribute
//! elements. The specification leaves out-of-range inputs unspecified; here they give some
//! value, never a panic (Rust's float-to-integer casts saturate and map NaN to 0).

/// OCTAHEDRAL: four signed 8-bit (stride 4) or 16-bit (stride 8) components, x and y of an
/// octahedral unit vector over the third (which holds 1.0 at the encoding's precision), become
/// the vector's three normalised components; the fourth passes through.
pub fn octahedral(data: &mut [u8], stride: usize) -> Result<(), String> {
    match stride {
        4 => {
            for element in data.chunks_exact_mut(4) {
                let c = [0, 1, 2].map(|i| f32::from(element[i] as i8));
                let v = unfold_octahedron(c[0], c[1], c[2]);
                for (byte, x) in element.iter_mut().zip(v) {
                    *byte = (x * 127.0).round() as i8 as u8;
                }
            }
        }
        8 => {
            for element in data.chunks_exact_mut(8) {
                let c = [0, 1, 2].map(|i| f32::from(i16::from_le_bytes([element[2 * i], element[2 * i + 1]])));
                let v = unfold_octahedron(c[0], c[1], c[2]);
                for (i, x) in v.into_iter().enumerate() {
                    element[2 * i..2 * i + 2].copy_from_slice(&((x * 32767.0).round() as i16).to_le_bytes());
                }
            }
        }
        _ => {
            return Err(format!(
                "the octahedral filter needs a stride of 4 or 8 bytes, not {stride}"
            ))
        }
    }
    Ok(())
}

fn unfold_octahedron(x: f32, y: f32, one: f32) -> [f32; 3] {
    let (mut x, mut y) = (x / one, y / one);
    let z = 1.0 - x.abs() - y.abs();
    let t = z.min(0.0);
    x -= t.copysign(x);
    y -= t.copysign(y);
    let length = (x * x + y * y + z * z).sqrt();
    [x / length, y / length, z / length]
}

/// QUATERNION: three signed 16-bit components scaled by sqrt(2), and in the fourth 1.0 at
/// their precision with the largest component's position in its two low bits, become the
/// unit quaternion's four normalised 16-bit components.
pub fn quaternion(data: &mut [u8], stride: usize) -> Result<(), String> {
    if stride != 8 {
        return Err(format!("the quaternion filter needs a stride of 8 bytes, not {stride}"));
    }
    for element in data.chunks_exact_mut(8) {
        let input = [0, 1, 2, 3].map(|i| i16::from_le_bytes([element[2 * i], element[2 * i + 1]]));
        let scale = std::f32::consts::FRAC_1_SQRT_2 / f32::from(input[3] | 3);
        let [x, y, z] = [0, 1, 2].map(|i| f32::from(input[i]) * scale);
        let w = (1.0 - x * x - y * y - z * z).max(0.0).sqrt();
        let largest = (input[3] & 3) as usize;
        for (offset, value) in [(1, x), (2, y), (3, z), (0, w)] {
            let at = 2 * ((largest + offset) % 4);
            element[at..at + 2].copy_from_slice(&((value * 32767.0).round() as i16).to_le_bytes());
        }
    }
    Ok(())
}

/// EXPONENTIAL: each 32-bit value, a signed 8-bit exponent over a signed 24-bit mantissa,
/// becomes the float 2^e m.
pub fn exponential(data: &mut [u8], stride: usize) -> Result<(), String> {
    if stride % 4 != 0 {
        return Err(format!(
            "the exponential filter needs a stride of a multiple of 4 bytes, not {stride}"
        ));
    }
    for value in data.chunks_exact_mut(4) {
        let input = i32::from_le_bytes([value[0], value[1], value[2], value[3]]);
        let exponent = input >> 24;
        let mantissa = (input << 8) >> 8;
        let decoded = mantissa as f32 * 2f32.powi(exponent);
        value.copy_from_slice(&decoded.to_le_bytes());
    }
    Ok(())
}

/// COLOR (KHR_meshopt_compression): four 8-bit (stride 4) or 16-bit (stride 8) components, an
/// unsigned K-bit Y, signed Co and Cg, and a (K-1)-bit alpha over a set bit K-1 (which gives
/// K), become unsigned normalised R, G, B and A.
pub fn color(data: &mut [u8], stride: usize) -> Result<(), String> {
    let (size, max) = match stride {
        4 => (1, 255.0),
        8 => (2, 65535.0),
        _ => return Err(format!("the color filter needs a stride of 4 or 8 bytes, not {stride}")),
    };
    for element in data.chunks_exact_mut(stride) {
        let component = |i: usize, signed: bool| -> i32 {
            match (size, signed) {
                (1, false) => i32::from(element[i]),
                (1, true) => i32::from(element[i] as i8),
                (_, false) => i32::from(u16::from_le_bytes([element[2 * i], element[2 * i + 1]])),
                (_, true) => i32::from(i16::from_le_bytes([element[2 * i], element[2 * i + 1]])),
            }
        };
        let (y, co, cg, alpha) = (
            component(0, false),
            component(1, true),
            component(2, true),
            component(3, false),
        );
        // The alpha's highest set bit is bit K - 1: all K bits set is the scale of K-bit values.
        let scale = ((1i64 << (32 - alpha.leading_zeros())) - 1).max(1) as i32;
        let a = alpha & (scale >> 1);
        let a = (a << 1) | (a & 1);
        let to_unit = max / scale as f32;
        let rgba = [y + co - cg, y + cg, y - co - cg, a].map(|c| (c as f32 * to_unit).round().clamp(0.0, max));
        for (i, c) in rgba.into_iter().enumerate() {
            if size == 1 {
                element[i] = c as u8;
            } else {
                element[2 * i..2 * i + 2].copy_from_slice(&(c as u16).to_le_bytes());
            }
        }
    }
    Ok(())
}
