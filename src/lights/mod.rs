//! Light sources and how next-event estimation picks them: the scene's emissive triangles
//! flattened into one array on the GPU, a light BVH over them and the point and spot lights
//! (by importance at the shading point) or a power tree (or CDF) over the triangles, each
//! built on the GPU, and the CPU references they are tested against.

pub mod bvh;
pub mod culling;
pub mod emissive;
pub mod flatten;
pub mod punctual;
pub mod sampler;
pub mod tree;

pub use culling::{CullBuild, CullingFormat, CullingSettings, LightCulling};
pub use emissive::EmissiveTriangles;
pub use punctual::PunctualLights;
pub use sampler::{LightSampler, LightSelection, LightTables};
pub use tree::{Leaves, LightTree, TreeLayout, TreeShape};
