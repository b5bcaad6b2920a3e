//! Scale-out: one render over every device of a host (`devices`), and renders cut into
//! partial films that a farm's machines make and `wavetrace merge` adds up exactly (`partial`,
//! their EXR files in `partial_file`, refused across scenes or settings by `fingerprint`).
//! docs/SCALE.md has the design and the figures.

pub mod devices;
pub mod fingerprint;
pub mod partial;
pub mod partial_file;

pub use devices::{render_split, Chunks, DeviceShare, SplitRender};
pub use fingerprint::Fingerprint;
pub use partial::{merge, MergeError, Part, PartialFilm};
pub use partial_file::{merge_files, read_partial, write_partial};
