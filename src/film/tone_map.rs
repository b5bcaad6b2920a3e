//! What a display shows of linear radiance: exposure in stops, a tone curve (a clamp,
//! Reinhard's x / (1 + x), or Stephen Hill's fit of the ACES reference rendering and output
//! transforms), then the sRGB encoding in 8 bits. The CPU twin of `film/display.comp`, which
//! the viewer runs on the GPU; PNG output uses this one, so that a PNG and the viewer's
//! window show the same bytes.

use crate::interface::{TONE_MAP_ACES, TONE_MAP_CLAMP, TONE_MAP_REINHARD};

use super::RgbImage;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ToneMap {
    /// clamp(x, 0, 1): exact below 1, what `render` always wrote to PNG.
    #[default]
    Clamp,
    Reinhard,
    /// Hill's ACES fit (BakingLab's ACES.hlsl): a film-like shoulder and a little saturation.
    Aces,
}

impl ToneMap {
    pub const ALL: [ToneMap; 3] = [ToneMap::Clamp, ToneMap::Reinhard, ToneMap::Aces];

    pub fn name(self) -> &'static str {
        match self {
            ToneMap::Clamp => "clamp",
            ToneMap::Reinhard => "reinhard",
            ToneMap::Aces => "aces",
        }
    }

    /// The operator's number in `DisplayPush::tone_map`.
    pub fn gpu_code(self) -> u32 {
        match self {
            ToneMap::Clamp => TONE_MAP_CLAMP,
            ToneMap::Reinhard => TONE_MAP_REINHARD,
            ToneMap::Aces => TONE_MAP_ACES,
        }
    }

    /// The next operator, for a key that cycles through them.
    pub fn next(self) -> Self {
        let index = Self::ALL.iter().position(|&t| t == self).unwrap_or(0);
        Self::ALL[(index + 1) % Self::ALL.len()]
    }

    fn curve(self, c: [f32; 3]) -> [f32; 3] {
        match self {
            ToneMap::Clamp => c,
            ToneMap::Reinhard => c.map(|x| x / (1.0 + x)),
            ToneMap::Aces => aces_fitted(c),
        }
    }
}

impl std::str::FromStr for ToneMap {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        Self::ALL
            .into_iter()
            .find(|t| t.name() == text)
            .ok_or_else(|| format!("unknown tone map `{text}` (one of: clamp, reinhard, aces)"))
    }
}

/// How linear radiance becomes display bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Display {
    pub tone_map: ToneMap,
    /// Stops: radiance is multiplied by 2^exposure before the curve.
    pub exposure: f32,
}

impl Display {
    /// The multiplier `exposure` stands for.
    pub fn scale(&self) -> f32 {
        self.exposure.exp2()
    }

    /// One pixel's sRGB bytes; NaN and negative values show black.
    pub fn encode(&self, linear: [f32; 3]) -> [u8; 3] {
        let scale = self.scale();
        let exposed = linear.map(|v| if v.is_finite() { v * scale } else { 0.0 });
        self.tone_map
            .curve(exposed)
            .map(|v| (srgb_encode(v.clamp(0.0, 1.0)) * 255.0).round() as u8)
    }

    /// Every pixel's bytes, row after row.
    pub fn encode_image(&self, image: &RgbImage) -> Vec<u8> {
        image.pixels.iter().flat_map(|&p| self.encode(p)).collect()
    }
}

fn aces_fitted(c: [f32; 3]) -> [f32; 3] {
    let dot = |row: [f32; 3], v: [f32; 3]| row[0] * v[0] + row[1] * v[1] + row[2] * v[2];
    let input = [
        [0.59719, 0.35458, 0.04823],
        [0.07600, 0.90834, 0.01566],
        [0.02840, 0.13383, 0.83777],
    ];
    let output = [
        [1.60475, -0.53108, -0.07367],
        [-0.10208, 1.10813, -0.00605],
        [-0.00327, -0.07276, 1.07602],
    ];
    let v = input.map(|row| dot(row, c));
    let v = v.map(|v| (v * (v + 0.0245786) - 0.000090537) / (v * (0.983729 * v + 0.432951) + 0.238081));
    output.map(|row| dot(row, v))
}

/// The sRGB transfer function (IEC 61966-2-1) of a linear value in [0, 1].
pub fn srgb_encode(linear: f32) -> f32 {
    if linear <= 0.003_130_8 {
        12.92 * linear
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_is_continuous_and_maps_the_ends() {
        assert_eq!(srgb_encode(0.0), 0.0);
        assert!((srgb_encode(1.0) - 1.0).abs() < 1e-6);
        let knee = 0.003_130_8f32;
        assert!((srgb_encode(knee) - srgb_encode(knee + 1e-7)).abs() < 1e-5);
        assert!((srgb_encode(0.18) - 0.4613).abs() < 1e-3);
    }

    #[test]
    fn curves_rise_from_black_and_keep_grey_grey() {
        for tone_map in ToneMap::ALL {
            let mut previous = -1.0f32;
            for step in 0..200 {
                let x = step as f32 * 0.05;
                let [r, g, b] = tone_map.curve([x; 3]);
                assert!(
                    (r - g).abs() < 2e-3 && (g - b).abs() < 2e-3,
                    "{tone_map:?} at {x}: {r} {g} {b}"
                );
                assert!(g >= previous, "{tone_map:?} falls at {x}");
                previous = g;
            }
        }
        // Hill's fit: white at about 0.8 of display white once exposed by 2^0.6, black at 0.
        assert!(ToneMap::Aces.curve([0.0; 3])[0].abs() < 1e-3);
        assert_eq!(ToneMap::Reinhard.curve([1.0; 3]), [0.5; 3]);
    }

    #[test]
    fn exposure_is_in_stops_and_non_finite_values_are_black() {
        let display = Display {
            tone_map: ToneMap::Clamp,
            exposure: 1.0,
        };
        // 0.25 x 2 = 0.5, whose sRGB encoding is 0.735: 187.5 rounds to 188.
        assert_eq!(display.encode([0.25, f32::NAN, -1.0]), [188, 0, 0]);
        assert_eq!("aces".parse::<ToneMap>(), Ok(ToneMap::Aces));
        assert!("filmic"
            .parse::<ToneMap>()
            .unwrap_err()
            .contains("clamp, reinhard, aces"));
    }
}
