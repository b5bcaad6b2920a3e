//! EXR and PNG output, and the Mitsuba references read through the same code.

use std::path::Path;

use wavetrace::film::{metrics, read_exr, write_exr, write_image, RgbImage};

fn reference(scene: &str, file: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenes")
        .join(scene)
        .join("ref")
        .join(file)
}

#[test]
fn exr_round_trips_exactly() {
    let dir = std::env::temp_dir().join(format!("wavetrace-film-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Odd sizes, values across many magnitudes, and a distinct value in every pixel.
    let image = RgbImage::from_fn(37, 23, |x, y| [x as f32 * 1e-3, y as f32 * 17.5, (x * y) as f32 + 0.25]);
    let path = dir.join("round.exr");
    write_exr(&path, &image).unwrap();
    assert_eq!(read_exr(&path).unwrap(), image);
    write_image(&dir.join("look.png"), &image, &Default::default()).unwrap();
    let png = std::fs::read(dir.join("look.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    let error = write_image(&dir.join("out.tiff"), &image, &Default::default())
        .unwrap_err()
        .to_string();
    assert!(error.contains("out.tiff"), "{error}");
}

#[test]
fn the_furnace_reference_equals_its_analytic_value() {
    // Every pixel of the furnace box at depth 8 is (1 - 0.5^8) / (1 - 0.5) = 1.9921875, so the
    // reference read through our EXR code and metrics must say so.
    let image = read_exr(&reference("furnace-box", "furnace-box-64-d8.exr")).unwrap();
    assert_eq!((image.width, image.height), (64, 64));
    for mean in image.mean() {
        assert!((mean / 1.9921875 - 1.0).abs() < 0.002, "{mean}");
    }
    let analytic = RgbImage::from_fn(64, 64, |_, _| [1.9921875; 3]);
    let c = metrics::compare(&analytic, &image).unwrap();
    assert!(c.rel_mse < 1e-4 && c.non_finite_pixels == 0, "{c:?}");
}

#[test]
fn depth_two_visibly_misses_light_that_depth_eight_has() {
    // The reference conventions promise that tests can see missing light this way.
    let d2 = read_exr(&reference("cornell-box", "cornell-box-128-d2.exr")).unwrap();
    let d8 = read_exr(&reference("cornell-box", "cornell-box-128-d8.exr")).unwrap();
    let c = metrics::compare(&d2, &d8).unwrap();
    for ratio in c.mean_ratio {
        assert!((0.55..0.9).contains(&ratio), "{c:?}");
    }
    assert!(c.block8_rel_mse > 0.01, "{c:?}");
}

#[test]
fn a_missing_reference_names_the_file() {
    let error = read_exr(Path::new("/nonexistent/ref.exr")).unwrap_err().to_string();
    assert!(error.contains("/nonexistent/ref.exr"), "{error}");
}
