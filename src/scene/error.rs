//! Why a scene could not be loaded: each error names the file and the part of it at fault.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SceneError {
    #[error("{path}: unsupported scene format (wavetrace reads .gltf and .glb)")]
    UnsupportedFormat { path: PathBuf },

    #[error("{path}: cannot read: {problem}")]
    Io { path: PathBuf, problem: String },

    #[error("{path}: not valid glTF: {problem}")]
    Malformed { path: PathBuf, problem: String },

    #[error("{path}: buffer {index} ({uri}): {problem}")]
    Buffer {
        path: PathBuf,
        index: usize,
        uri: String,
        problem: String,
    },

    #[error("{path}: mesh {mesh}: {problem}")]
    Mesh {
        path: PathBuf,
        mesh: String,
        problem: String,
    },

    #[error("{path}: {problem}")]
    Unsupported { path: PathBuf, problem: String },
}
