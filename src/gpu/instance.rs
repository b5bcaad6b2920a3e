//! The Vulkan instance: loader, validation layer, and a debug messenger that routes messages
//! to `log` and counts validation errors so that a test can fail on any of them.

use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use ash::vk;

use super::error::{GpuError, GpuResult, VkResultExt};

const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Counts of validation messages, shared with whoever wants to check them after the fact
/// (a test keeps a clone past the context's drop, so teardown errors count too).
#[derive(Debug, Default)]
pub struct MessageCounts {
    errors: AtomicU32,
    warnings: AtomicU32,
}

impl MessageCounts {
    pub fn errors(&self) -> u32 {
        self.errors.load(Ordering::Relaxed)
    }
    pub fn warnings(&self) -> u32 {
        self.warnings.load(Ordering::Relaxed)
    }
}

/// Whether the Khronos validation layer is on; `FromEnv` reads `WAVETRACE_VALIDATION=1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Validation {
    Off,
    On,
    FromEnv,
}

impl Validation {
    fn enabled(self) -> bool {
        match self {
            Validation::Off => false,
            Validation::On => true,
            Validation::FromEnv => std::env::var("WAVETRACE_VALIDATION").is_ok_and(|v| v == "1"),
        }
    }
}

pub struct Instance {
    pub(crate) entry: ash::Entry,
    pub(crate) raw: ash::Instance,
    pub(crate) debug_utils: Option<ash::ext::debug_utils::Instance>,
    messenger: vk::DebugUtilsMessengerEXT,
    counts: Arc<MessageCounts>,
    validation: bool,
}

/// Vulkan's lowest version that has everything we use in core: buffer device address,
/// timeline semaphores, scalar layout (1.2), synchronization2 (1.3).
pub const REQUIRED_API_VERSION: u32 = vk::API_VERSION_1_3;

/// The instance extensions that make surfaces for windows of `display`, each checked
/// against what the loader offers.
fn surface_extensions(
    display: raw_window_handle::RawDisplayHandle,
    has_extension: &dyn Fn(&CStr) -> bool,
) -> GpuResult<Vec<*const std::ffi::c_char>> {
    let names = ash_window::enumerate_required_extensions(display).map_err(|result| {
        GpuError::Presentation(format!("this display has no Vulkan surface extension ({result:?})"))
    })?;
    for &name in names {
        // SAFETY: ash_window returns pointers to static NUL-terminated names.
        let name = unsafe { CStr::from_ptr(name) };
        if !has_extension(name) {
            return Err(GpuError::Presentation(format!(
                "the Vulkan loader offers no {}: it cannot draw to this display",
                name.to_string_lossy()
            )));
        }
    }
    Ok(names.to_vec())
}

impl Instance {
    pub fn new(validation: Validation) -> GpuResult<Self> {
        Self::with_presentation(validation, None)
    }

    /// An instance that can also make surfaces for windows of `display` (the viewer).
    pub fn with_presentation(
        validation: Validation,
        display: Option<raw_window_handle::RawDisplayHandle>,
    ) -> GpuResult<Self> {
        // WAVETRACE_VULKAN_LOADER names a loader library to use instead of the system's, for
        // machines that carry their own (and for tests of the missing-loader error).
        let custom_loader = std::env::var_os("WAVETRACE_VULKAN_LOADER");
        // SAFETY: loading a Vulkan loader runs its initialisers; nothing else of ours touches
        // the library until this returns.
        let entry = match &custom_loader {
            Some(path) => unsafe { ash::Entry::load_from(path) },
            None => unsafe { ash::Entry::load() },
        }
        .map_err(|e| GpuError::NoLoader(e.to_string()))?;
        let validation = validation.enabled();

        // SAFETY: plain enumeration calls on a loaded entry.
        let layers = unsafe { entry.enumerate_instance_layer_properties() }.vk("vkEnumerateInstanceLayerProperties")?;
        let extensions = unsafe { entry.enumerate_instance_extension_properties(None) }
            .vk("vkEnumerateInstanceExtensionProperties")?;
        let has_layer = |name: &CStr| layers.iter().any(|l| l.layer_name_as_c_str() == Ok(name));
        let has_extension = |name: &CStr| extensions.iter().any(|e| e.extension_name_as_c_str() == Ok(name));

        if validation && !has_layer(VALIDATION_LAYER) {
            return Err(GpuError::NoValidationLayer);
        }
        // Debug names and labels are for RenderDoc and Nsight too, so debug utils is on
        // whenever the loader offers it, with or without validation.
        let debug_utils_available = has_extension(ash::ext::debug_utils::NAME);

        let app_info = vk::ApplicationInfo::default()
            .application_name(c"wavetrace")
            .application_version(vk::make_api_version(0, 0, 1, 0))
            .engine_name(c"wavetrace")
            .api_version(REQUIRED_API_VERSION);
        let mut layer_names = Vec::new();
        if validation {
            layer_names.push(VALIDATION_LAYER.as_ptr());
        }
        let mut extension_names = Vec::new();
        if debug_utils_available {
            extension_names.push(ash::ext::debug_utils::NAME.as_ptr());
        }
        if let Some(display) = display {
            extension_names.extend(surface_extensions(display, &has_extension)?);
        }
        let create_info = vk::InstanceCreateInfo::default()
            .application_info(&app_info)
            .enabled_layer_names(&layer_names)
            .enabled_extension_names(&extension_names);
        // SAFETY: every pointer in create_info outlives the call.
        let raw = unsafe { entry.create_instance(&create_info, None) }.map_err(|result| match result {
            vk::Result::ERROR_INCOMPATIBLE_DRIVER => GpuError::NoDevice,
            result => GpuError::Vulkan {
                call: "vkCreateInstance",
                result,
            },
        })?;

        super::loaded_libraries::keep_loaded(&entry, &app_info, &layer_names, validation);
        let counts = Arc::new(MessageCounts::default());
        let (debug_utils, messenger) = if debug_utils_available {
            let debug_utils = ash::ext::debug_utils::Instance::new(&entry, &raw);
            let severity = vk::DebugUtilsMessageSeverityFlagsEXT::ERROR
                | vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                | vk::DebugUtilsMessageSeverityFlagsEXT::INFO;
            let messenger_info = vk::DebugUtilsMessengerCreateInfoEXT::default()
                .message_severity(severity)
                .message_type(
                    vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                        | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                        | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
                )
                .pfn_user_callback(Some(debug_callback))
                .user_data(Arc::as_ptr(&counts) as *mut c_void);
            // SAFETY: `counts` is kept alive by `self.counts` until the messenger is destroyed in drop.
            let messenger = unsafe { debug_utils.create_debug_utils_messenger(&messenger_info, None) }
                .vk("vkCreateDebugUtilsMessengerEXT")?;
            (Some(debug_utils), messenger)
        } else {
            (None, vk::DebugUtilsMessengerEXT::null())
        };

        Ok(Self {
            entry,
            raw,
            debug_utils,
            messenger,
            counts,
            validation,
        })
    }

    pub fn validation_enabled(&self) -> bool {
        self.validation
    }

    pub fn message_counts(&self) -> Arc<MessageCounts> {
        Arc::clone(&self.counts)
    }

    /// The loader's instance-level version, e.g. "1.3.239".
    pub fn loader_version(&self) -> String {
        // SAFETY: a plain query on a loaded entry.
        let version = unsafe { self.entry.try_enumerate_instance_version() }
            .ok()
            .flatten()
            .unwrap_or(vk::API_VERSION_1_0);
        format_version(version)
    }
}

impl Drop for Instance {
    fn drop(&mut self) {
        // SAFETY: the device and everything created from this instance are gone (they hold an
        // Arc to it), so nothing uses the messenger or the instance any more.
        unsafe {
            if let Some(debug_utils) = &self.debug_utils {
                debug_utils.destroy_debug_utils_messenger(self.messenger, None);
            }
            self.raw.destroy_instance(None);
        }
    }
}

pub fn format_version(version: u32) -> String {
    format!(
        "{}.{}.{}",
        vk::api_version_major(version),
        vk::api_version_minor(version),
        vk::api_version_patch(version)
    )
}

unsafe extern "system" fn debug_callback(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    // SAFETY: the layer passes valid callback data for the duration of the call, and
    // user_data is the MessageCounts that Instance keeps alive while the messenger exists.
    let (message, counts) = unsafe {
        let message = if data.is_null() || (*data).p_message.is_null() {
            "(no message)".into()
        } else {
            CStr::from_ptr((*data).p_message).to_string_lossy()
        };
        (message, &*(user_data as *const MessageCounts))
    };
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        counts.errors.fetch_add(1, Ordering::Relaxed);
        log::error!(target: "vulkan", "[{kind:?}] {message}");
    } else if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::WARNING) {
        counts.warnings.fetch_add(1, Ordering::Relaxed);
        log::warn!(target: "vulkan", "[{kind:?}] {message}");
    } else {
        log::debug!(target: "vulkan", "[{kind:?}] {message}");
    }
    vk::FALSE
}
