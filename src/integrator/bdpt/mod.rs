//! Bidirectional path tracing (Veach and Guibas 1995) on the wavefront: light and camera
//! subpaths built one vertex per kernel pass, connected by every strategy (s, t), weighted by
//! MIS carried incrementally. Under construction: what exists so far is the MIS arithmetic the
//! kernels will mirror (`mis`), with its reference over whole paths; `--integrator bdpt` does
//! not exist yet.

pub mod mis;
