//! The rendered image on the CPU side: linear RGB pixels, their output as EXR (linear,
//! scene-referred) and PNG (sRGB of clamp(exposure x value)), and the image metrics every
//! test and benchmark compares with (relMSE, block-8 relMSE, mean ratio).

mod image;
pub mod metrics;
mod output;

pub use image::RgbImage;
pub use output::{read_exr, write_exr, write_image, write_png, FilmError};
