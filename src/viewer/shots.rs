//! F5 and P: the image as it stands, written as EXR (linear) and PNG (as the window shows
//! it), under a name that says the scene, the time and the samples.

use std::path::{Path, PathBuf};

use crate::film::{write_exr, write_png, Display, RgbImage};

/// `<scene>-<YYYYMMDD-HHMMSS>-<spp>spp`, in UTC.
pub fn shot_name(scene: &Path, seconds_since_epoch: u64, samples: u32) -> String {
    let stem = scene
        .file_stem()
        .map_or("wavetrace".into(), |s| s.to_string_lossy().into_owned());
    let (year, month, day) = civil_date(seconds_since_epoch / 86_400);
    let time = seconds_since_epoch % 86_400;
    format!(
        "{stem}-{year:04}{month:02}{day:02}-{:02}{:02}{:02}-{samples}spp",
        time / 3600,
        time / 60 % 60,
        time % 60
    )
}

/// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
/// `civil_from_days`).
fn civil_date(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let day_of_era = z - era * 146_097;
    let year_of_era = (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = year_of_era + era * 400 + u64::from(month <= 2);
    (year, month, day)
}

/// Writes both files into `folder`; returns their paths.
pub fn write_shot(
    folder: &Path,
    scene: &Path,
    image: &RgbImage,
    samples: u32,
    display: &Display,
) -> Result<[PathBuf; 2], String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let name = shot_name(scene, now, samples);
    let exr = folder.join(format!("{name}.exr"));
    let png = folder.join(format!("{name}.png"));
    write_exr(&exr, image).map_err(|e| e.to_string())?;
    write_png(&png, image, display).map_err(|e| e.to_string())?;
    Ok([exr, png])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_scene_utc_time_and_samples() {
        // 2026-11-24 13:05:09 UTC.
        let seconds = 1_795_525_509;
        assert_eq!(
            shot_name(Path::new("a/cornell-box.gltf"), seconds, 64),
            "cornell-box-20261124-130509-64spp"
        );
        assert_eq!(civil_date(0), (1970, 1, 1));
        assert_eq!(civil_date(11_016), (2000, 2, 29));
    }
}
