//! A linear RGB image, row 0 at the top.

#[derive(Clone, Debug, PartialEq)]
pub struct RgbImage {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<[f32; 3]>,
}

impl RgbImage {
    pub fn new(width: usize, height: usize) -> Self {
        Self {
            width,
            height,
            pixels: vec![[0.0; 3]; width * height],
        }
    }

    pub fn from_fn(width: usize, height: usize, f: impl Fn(usize, usize) -> [f32; 3]) -> Self {
        let pixels = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| f(x, y))
            .collect();
        Self { width, height, pixels }
    }

    /// The rectangle of `width` x `height` pixels whose top left is (x, y); an error where it
    /// is empty or leaves the image.
    pub fn crop(&self, x: usize, y: usize, width: usize, height: usize) -> Result<Self, String> {
        if width == 0 || height == 0 || x + width > self.width || y + height > self.height {
            return Err(format!(
                "the crop {width}x{height} at ({x}, {y}) is empty or leaves the {}x{} image",
                self.width, self.height
            ));
        }
        Ok(Self::from_fn(width, height, |cx, cy| self.pixel(x + cx, y + cy)))
    }

    pub fn pixel(&self, x: usize, y: usize) -> [f32; 3] {
        self.pixels[y * self.width + x]
    }

    /// Per-channel mean.
    pub fn mean(&self) -> [f64; 3] {
        let mut sum = [0.0f64; 3];
        for p in &self.pixels {
            for c in 0..3 {
                sum[c] += f64::from(p[c]);
            }
        }
        sum.map(|s| s / self.pixels.len().max(1) as f64)
    }

    pub fn has_non_finite(&self) -> bool {
        self.pixels.iter().flatten().any(|v| !v.is_finite())
    }
}
