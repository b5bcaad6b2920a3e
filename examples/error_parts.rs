//! Splits a render's relMSE (REFERENCE.md: mean((x - r)^2 / (r^2 + 0.01))) into parts that
//! light selection does and does not control, for docs/LIGHTS.md:
//!
//!     error_parts floor LOW LOW_REFERENCE REFERENCE
//!
//! the error of LOW against LOW_REFERENCE (say a depth-1 render, emitters seen directly, and
//! its reference) in the units of REFERENCE's relMSE (the deeper render's reference): what
//! every render of the same camera samples carries whatever chooses its lights; and
//!
//!     error_parts shared A B REFERENCE
//!
//! mean((a - r)(b - r) / (r^2 + 0.01)): the error two renders of the same seed share.

use std::path::Path;
use std::process::ExitCode;

use wavetrace::film::{read_exr, RgbImage};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [mode, first, second, reference] = args.as_slice() else {
        eprintln!("usage: error_parts floor|shared IMAGE IMAGE REFERENCE");
        return ExitCode::FAILURE;
    };
    let load = |path: &String| read_exr(Path::new(path)).map_err(|e| format!("{path}: {e}"));
    let images = match (load(first), load(second), load(reference)) {
        (Ok(a), Ok(b), Ok(r)) => [a, b, r],
        (a, b, r) => {
            for e in [a.err(), b.err(), r.err()].into_iter().flatten() {
                eprintln!("{e}");
            }
            return ExitCode::FAILURE;
        }
    };
    if images
        .iter()
        .any(|i| (i.width, i.height) != (images[2].width, images[2].height))
    {
        eprintln!("the three images differ in size");
        return ExitCode::FAILURE;
    }
    let term: fn(f64, f64, f64) -> f64 = match mode.as_str() {
        // LOW's error against its own reference, over the deeper reference's denominator.
        "floor" => |x, x_reference, r| (x - x_reference).powi(2) / (r * r + 0.01),
        "shared" => |a, b, r| (a - r) * (b - r) / (r * r + 0.01),
        _ => {
            eprintln!("unknown part {mode}: floor or shared");
            return ExitCode::FAILURE;
        }
    };
    println!("{mode} {:.6}", mean_term(&images, term));
    ExitCode::SUCCESS
}

fn mean_term([a, b, r]: &[RgbImage; 3], term: fn(f64, f64, f64) -> f64) -> f64 {
    let sum: f64 = a
        .pixels
        .iter()
        .zip(&b.pixels)
        .zip(&r.pixels)
        .flat_map(|((x, y), z)| (0..3).map(move |c| term(f64::from(x[c]), f64::from(y[c]), f64::from(z[c]))))
        .sum();
    sum / (3 * r.pixels.len().max(1)) as f64
}
