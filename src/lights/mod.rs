//! Light sources and how next-event estimation picks them: the scene's emissive triangles
//! flattened into one array on the GPU, a power tree (or CDF) over them built on the GPU in
//! one dispatch, and the CPU reference both are tested against.

pub mod emissive;
pub mod flatten;
pub mod punctual;
pub mod sampler;
pub mod tree;

pub use emissive::EmissiveTriangles;
pub use punctual::PunctualLights;
pub use sampler::{LightSampler, LightSelection, LightTables};
pub use tree::{Leaves, LightTree, TreeLayout, TreeShape};
