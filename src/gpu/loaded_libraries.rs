//! Keeps the Vulkan loader, its drivers and the layers of an instance loaded for the rest of
//! the process: one instance of each layer set is made once and never destroyed.
//!
//! The loader opens the drivers and layers with each instance and closes them with it, and
//! glibc never takes back the static TLS a library loaded after start-up was given. NVIDIA's
//! driver (or its validation layer) takes some each time it is loaded: on the H200 a process
//! that made about 40 contexts one after another had none left, vkCreateInstance failed and
//! every later context was "no Vulkan device found" (the test suite in one process; with
//! `GLIBC_TUNABLES=glibc.rtld.optional_static_tls` raised it passed). Held by an instance that
//! lives on, each library is loaded once.

use std::ffi::c_char;
use std::sync::Mutex;

use ash::vk;

/// An instance made only to be kept; its entry keeps the loader library open too.
struct Holder {
    validation: bool,
    _entry: ash::Entry,
    _instance: ash::Instance,
}

// SAFETY: a holder is never used after it is made; it is only kept from being destroyed.
unsafe impl Send for Holder {}

static HOLDERS: Mutex<Vec<Holder>> = Mutex::new(Vec::new());

/// After an instance of `layers` was made from `entry`: keeps the libraries it loaded loaded,
/// once per layer set (with or without `validation`).
pub(super) fn keep_loaded(
    entry: &ash::Entry,
    app_info: &vk::ApplicationInfo,
    layers: &[*const c_char],
    validation: bool,
) {
    let mut holders = HOLDERS.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if holders.iter().any(|h| h.validation == validation) {
        return;
    }
    let create_info = vk::InstanceCreateInfo::default()
        .application_info(app_info)
        .enabled_layer_names(layers);
    // SAFETY: the same call that just succeeded, without extensions; every pointer outlives it.
    match unsafe { entry.create_instance(&create_info, None) } {
        Ok(instance) => holders.push(Holder {
            validation,
            _entry: entry.clone(),
            _instance: instance,
        }),
        Err(result) => {
            log::debug!("the Vulkan drivers could not be held loaded ({result:?}): each context loads them again")
        }
    }
}

/// Whether the libraries of an instance with (or without) `validation` are held.
pub fn held(validation: bool) -> bool {
    HOLDERS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .iter()
        .any(|h| h.validation == validation)
}
