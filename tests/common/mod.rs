//! Shared by the integration tests: a context with the Khronos validation layer always on,
//! and a check, after the context is gone, that validation reported no error.

#![allow(dead_code)]

use std::sync::Arc;

use wavetrace::gpu::{Context, ContextDesc, MessageCounts, Validation};

pub struct TestGpu {
    pub context: Context,
    counts: Arc<MessageCounts>,
}

pub fn gpu() -> TestGpu {
    let _ = env_logger::builder().is_test(true).try_init();
    let context = Context::new(&ContextDesc {
        validation: Validation::On,
        device: None,
    })
    .unwrap_or_else(|e| panic!("tests need a Vulkan device with ray tracing (run tools/setup.sh): {e}"));
    assert!(context.validation_enabled());
    let counts = context.message_counts();
    TestGpu { context, counts }
}

impl TestGpu {
    /// Drops the context (teardown messages count too) and fails on any validation error.
    pub fn finish(self) {
        let counts = self.counts;
        drop(self.context);
        assert_eq!(
            counts.errors(),
            0,
            "the validation layer reported errors (see the log above)"
        );
    }
}

/// A scene from tests/scenes by name (`cornell-box` -> tests/scenes/cornell-box/cornell-box.gltf).
pub fn load_scene(name: &str) -> wavetrace::scene::Scene {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenes")
        .join(name)
        .join(format!("{name}.gltf"));
    wavetrace::scene::Scene::load(&path).unwrap_or_else(|e| panic!("{e}"))
}
