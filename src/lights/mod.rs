//! Light sources and how next-event estimation picks them.

pub mod emissive;

pub use emissive::EmissiveTriangles;
