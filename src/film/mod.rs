//! The rendered image: the film the GPU adds samples to (`accumulation`), linear RGB pixels
//! on the CPU side, their output as EXR (linear, scene-referred) and PNG (what a display
//! shows: `tone_map`), and the image metrics every test and benchmark compares with
//! (relMSE, block-8 relMSE, mean ratio).

mod accumulation;
mod image;
pub mod metrics;
mod output;
pub mod tone_map;

pub use accumulation::{mean_of_sums, Film, FILM_BYTES_PER_PIXEL};
pub use image::RgbImage;
pub use output::{read_exr, write_exr, write_image, write_png, FilmError};
pub use tone_map::{Display, ToneMap};
