//! The viewer's text overlay (help and statistics) as a bit mask the display kernel lays over
//! the image: a built-in 3x5 pixel font of capitals, digits and punctuation, drawn at a whole
//! multiple of its size. Lower case is shown as capitals; other characters as '?'.

/// Glyph cells, in font pixels: 3 wide and 5 tall, with a pixel of space right and below.
const CELL_WIDTH: u32 = 4;
const CELL_HEIGHT: u32 = 6;
/// Font pixels of margin around the text.
const MARGIN: u32 = 2;

/// A glyph as five rows of three bits, the top row first, the leftmost pixel the high bit.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 2, 2],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        ' ' => [0, 0, 0, 0, 0],
        '.' => [0, 0, 0, 0, 2],
        ',' => [0, 0, 0, 2, 4],
        ':' => [0, 2, 0, 2, 0],
        ';' => [0, 2, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        '+' => [0, 2, 7, 2, 0],
        '=' => [0, 7, 0, 7, 0],
        '/' => [1, 1, 2, 4, 4],
        '(' => [2, 4, 4, 4, 2],
        ')' => [2, 1, 1, 1, 2],
        '[' => [6, 4, 4, 4, 6],
        ']' => [3, 1, 1, 1, 3],
        '<' => [1, 2, 4, 2, 1],
        '>' => [4, 2, 1, 2, 4],
        '%' => [5, 1, 2, 4, 5],
        '_' => [0, 0, 0, 0, 7],
        '\'' => [2, 2, 0, 0, 0],
        '!' => [2, 2, 2, 0, 2],
        '*' => [5, 2, 5, 0, 0],
        '#' => [5, 7, 5, 7, 5],
        '|' => [2, 2, 2, 2, 2],
        _ => [7, 1, 2, 0, 2],
    }
}

/// Text drawn into a bit mask: `width` x `height` pixels from the image's top left, rows of
/// `words_per_row` words, bit x % 32 of word x / 32 for pixel x.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overlay {
    pub width: u32,
    pub height: u32,
    pub words: Vec<u32>,
}

impl Overlay {
    /// `lines` at `scale` image pixels per font pixel, cut to fit an image of `max_width` x
    /// `max_height`.
    pub fn draw(lines: &[String], scale: u32, max_width: u32, max_height: u32) -> Self {
        let scale = scale.max(1);
        let columns = lines.iter().map(|l| l.chars().count() as u32).max().unwrap_or(0);
        let width = ((columns * CELL_WIDTH + 2 * MARGIN) * scale).min(max_width);
        let height = ((lines.len() as u32 * CELL_HEIGHT + 2 * MARGIN) * scale).min(max_height);
        let words_per_row = width.div_ceil(32);
        let mut words = vec![0u32; (words_per_row * height) as usize];
        for (row, line) in lines.iter().enumerate() {
            for (column, c) in line.chars().enumerate() {
                let rows = glyph(c);
                for (gy, bits) in rows.iter().enumerate() {
                    for gx in 0..3u32 {
                        if bits & (4 >> gx) == 0 {
                            continue;
                        }
                        let x0 = (MARGIN + column as u32 * CELL_WIDTH + gx) * scale;
                        let y0 = (MARGIN + row as u32 * CELL_HEIGHT + gy as u32) * scale;
                        for y in y0..(y0 + scale).min(height) {
                            for x in x0..(x0 + scale).min(width) {
                                words[(y * words_per_row + x / 32) as usize] |= 1 << (x % 32);
                            }
                        }
                    }
                }
            }
        }
        Self { width, height, words }
    }

    pub fn is_set(&self, x: u32, y: u32) -> bool {
        let words_per_row = self.width.div_ceil(32);
        x < self.width && y < self.height && self.words[(y * words_per_row + x / 32) as usize] >> (x % 32) & 1 == 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_land_where_their_cells_are() {
        let overlay = Overlay::draw(&["1-".into(), "".into()], 2, 1000, 1000);
        assert_eq!(overlay.width, (2 * CELL_WIDTH + 2 * MARGIN) * 2);
        assert_eq!(overlay.height, (2 * CELL_HEIGHT + 2 * MARGIN) * 2);
        // '1': top row 010, so its middle pixel is set and its left one is not.
        let (x0, y0) = (MARGIN * 2, MARGIN * 2);
        assert!(overlay.is_set(x0 + 2, y0) && overlay.is_set(x0 + 3, y0 + 1));
        assert!(!overlay.is_set(x0, y0));
        // '-': only its middle row.
        let x1 = (MARGIN + CELL_WIDTH) * 2;
        assert!(overlay.is_set(x1, y0 + 4) && !overlay.is_set(x1, y0));
        let set = (0..overlay.height)
            .flat_map(|y| (0..overlay.width).map(move |x| (x, y)))
            .filter(|&(x, y)| overlay.is_set(x, y))
            .count();
        assert_eq!(set, (8 + 3) * 4, "'1' has 8 pixels and '-' 3, each 2x2");
    }

    #[test]
    fn text_is_cut_to_the_image() {
        let overlay = Overlay::draw(&["A LONG LINE OF TEXT".into()], 3, 40, 10);
        assert_eq!((overlay.width, overlay.height), (40, 10));
        assert_eq!(overlay.words.len(), 2 * 10);
    }
}
