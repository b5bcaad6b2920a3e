//! Partial films: a render's raw fixed-point sums and per-pixel sample counts with the
//! fingerprint of its scene and settings, and the exact merge of several. Integer sums add in
//! any order, so any split of sample ranges or tiles merges into the whole render bit for bit.

use crate::film::{mean_of_sums, RgbImage};
use crate::integrator::Crop;

use super::fingerprint::Fingerprint;

/// The most pieces one partial film may hold: a merge checks each new piece against every
/// piece already in (a tree of merges keeps each film's list short).
pub const MAX_MERGED_PARTS: usize = 10_000;

/// A piece of a render: a rectangle of pixels and the samples `first..end` of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub tile: Crop,
    pub first_sample: u32,
    pub end_sample: u32,
}

impl Part {
    /// Whether the two pieces share a sample of a pixel: merging both would count it twice.
    pub fn overlaps(&self, other: &Part) -> bool {
        let (a, b) = (self.tile, other.tile);
        let pixels = a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height;
        pixels && self.first_sample < other.end_sample && other.first_sample < self.end_sample
    }
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let t = self.tile;
        write!(
            f,
            "samples {}..{} of {}x{} pixels at ({}, {})",
            self.first_sample, self.end_sample, t.width, t.height, t.x, t.y
        )
    }
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum MergeError {
    #[error("no parts to merge")]
    Nothing,
    #[error("{0}: of another scene or other settings than {1}; they differ in {2}")]
    Mismatch(String, String, String),
    #[error("{0} and {1} both hold {2}: merging would count those samples twice")]
    Overlap(String, String, String),
    #[error("the parts cover {covered} of {pixels} pixels with {counts}: an image needs every pixel with the same number of samples (merge the rest, or write a partial film)")]
    Incomplete { covered: u64, pixels: u64, counts: String },
    #[error("{0}: more than 2^32 samples of a pixel in all")]
    TooManySamples(String),
    #[error("{0}: more than {MAX_MERGED_PARTS} parts in one film; merge in a tree of partial films")]
    TooManyParts(String),
}

/// A render's film as a farm moves it: what `wavetrace merge` adds.
#[derive(Clone, Debug)]
pub struct PartialFilm {
    pub width: u32,
    pub height: u32,
    /// Three fixed-point sums a pixel (`film.glsl`'s units), row-major.
    pub sums: Vec<u64>,
    /// The samples each pixel has.
    pub samples: Vec<u32>,
    pub fingerprint: Fingerprint,
    /// The pieces merged into this film, each once.
    pub parts: Vec<Part>,
}

impl PartialFilm {
    /// The film of one render: `sums` over the whole image, samples only in `part.tile`.
    pub fn of_render(width: u32, height: u32, sums: Vec<u64>, part: Part, fingerprint: Fingerprint) -> Self {
        let count = part.end_sample - part.first_sample;
        let samples = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .map(|(x, y)| if part.tile.contains(x, y) { count } else { 0 })
            .collect();
        Self {
            width,
            height,
            sums,
            samples,
            fingerprint,
            parts: vec![part],
        }
    }

    /// Adds `other` into `self`; `names` name the two in messages.
    pub fn add(&mut self, other: &PartialFilm, names: (&str, &str)) -> Result<(), MergeError> {
        if self.fingerprint != other.fingerprint || (self.width, self.height) != (other.width, other.height) {
            let mut differences = self.fingerprint.differences(&other.fingerprint);
            if (self.width, self.height) != (other.width, other.height) {
                differences.push(format!(
                    "{}x{} against {}x{}",
                    self.width, self.height, other.width, other.height
                ));
            }
            return Err(MergeError::Mismatch(
                names.1.to_string(),
                names.0.to_string(),
                differences.join(", "),
            ));
        }
        if self.parts.len() + other.parts.len() > MAX_MERGED_PARTS {
            return Err(MergeError::TooManyParts(names.1.to_string()));
        }
        for mine in &self.parts {
            if let Some(theirs) = other.parts.iter().find(|p| p.overlaps(mine)) {
                return Err(MergeError::Overlap(
                    names.0.to_string(),
                    names.1.to_string(),
                    format!("{mine} and {theirs}"),
                ));
            }
        }
        for (sum, add) in self.sums.iter_mut().zip(&other.sums) {
            *sum = sum.wrapping_add(*add);
        }
        for (count, add) in self.samples.iter_mut().zip(&other.samples) {
            *count = count
                .checked_add(*add)
                .ok_or_else(|| MergeError::TooManySamples(names.1.to_string()))?;
        }
        self.parts.extend_from_slice(&other.parts);
        Ok(())
    }

    /// The samples every pixel has, when they all have the same non-zero number.
    pub fn uniform_samples(&self) -> Result<u32, MergeError> {
        let first = self.samples.first().copied().unwrap_or(0);
        if first > 0 && self.samples.iter().all(|&count| count == first) {
            return Ok(first);
        }
        let (smallest, more) = smallest_distinct(&self.samples, DISTINCT_COUNTS_KEPT);
        let shown: Vec<String> = smallest.iter().take(4).map(u32::to_string).collect();
        Err(MergeError::Incomplete {
            covered: self.samples.iter().filter(|&&c| c > 0).count() as u64,
            pixels: self.samples.len() as u64,
            counts: format!(
                "{}{} sample counts ({}{})",
                if more { "more than " } else { "" },
                smallest.len(),
                shown.join(", "),
                if smallest.len() > 4 { ", ..." } else { "" }
            ),
        })
    }

    /// The image: the mean of every pixel's samples, as a render of them all gives it.
    pub fn mean(&self) -> Result<RgbImage, MergeError> {
        let spp = self.uniform_samples()?;
        Ok(mean_of_sums(self.width as usize, self.height as usize, &self.sums, spp))
    }
}

/// How many different sample counts an incomplete film's message counts exactly.
const DISTINCT_COUNTS_KEPT: usize = 64;

/// The `keep` smallest distinct values, ascending, and whether there were more: one pass and
/// no copy, since a film may have 2^28 pixels (sorting them all took 16 s in a debug build).
fn smallest_distinct(values: &[u32], keep: usize) -> (Vec<u32>, bool) {
    let mut smallest = std::collections::BTreeSet::new();
    let mut more = false;
    let mut previous = None;
    for &value in values {
        // Neighbouring pixels mostly share their count; the set is asked once a run.
        if previous == Some(value) {
            continue;
        }
        previous = Some(value);
        if smallest.insert(value) && smallest.len() > keep {
            smallest.pop_last();
            more = true;
        }
    }
    (smallest.into_iter().collect(), more)
}

/// Films added one at a time, named in messages by the first one's name.
#[derive(Default)]
pub struct Merger(Option<(String, PartialFilm)>);

impl Merger {
    pub fn add(&mut self, name: String, film: PartialFilm) -> Result<(), MergeError> {
        match &mut self.0 {
            None => self.0 = Some((name, film)),
            Some((first, sum)) => sum.add(&film, (first, &name))?,
        }
        Ok(())
    }

    /// The sum and the first film's name; `None` when nothing was added.
    pub fn finish(self) -> Option<(String, PartialFilm)> {
        self.0
    }
}

/// Merges parts in order; `named` pairs each with its name for messages (a file's path).
pub fn merge(named: Vec<(String, PartialFilm)>) -> Result<PartialFilm, MergeError> {
    let mut merger = Merger::default();
    for (name, film) in named {
        merger.add(name, film)?;
    }
    merger.finish().map(|(_, film)| film).ok_or(MergeError::Nothing)
}

#[cfg(test)]
mod tests {
    use super::smallest_distinct;

    #[test]
    fn smallest_distinct_keeps_the_least_values_and_says_when_there_were_more() {
        assert_eq!(smallest_distinct(&[5, 5, 2, 9, 2, 2, 5], 64), (vec![2, 5, 9], false));
        assert_eq!(smallest_distinct(&[5, 5, 2, 9, 2, 2, 5], 3), (vec![2, 5, 9], false));
        let descending: Vec<u32> = (0..100).rev().collect();
        assert_eq!(smallest_distinct(&descending, 4), (vec![0, 1, 2, 3], true));
        assert_eq!(smallest_distinct(&[], 4), (vec![], false));
    }
}
