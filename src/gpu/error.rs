//! Typed errors of the Vulkan layer: each says what failed and what a user can do about it.

use ash::vk;

#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    #[error(
        "the Vulkan loader (libvulkan.so.1) could not be loaded ({0}); \
         install it, e.g. `apt-get install libvulkan1` on Debian/Ubuntu"
    )]
    NoLoader(String),

    #[error(
        "the Khronos validation layer (VK_LAYER_KHRONOS_validation) was requested but is not \
         installed; install it, e.g. `apt-get install vulkan-validationlayers`, or unset WAVETRACE_VALIDATION"
    )]
    NoValidationLayer,

    #[error("{variable}={value:?} is not {expected}")]
    BadEnvironment {
        variable: &'static str,
        value: String,
        expected: String,
    },

    #[error("no Vulkan device found; install a GPU driver, or Mesa's lavapipe (`tools/setup.sh`)")]
    NoDevice,

    #[error("WAVETRACE_DEVICE={selector:?} matches no Vulkan device; the devices are: {devices}")]
    NoMatchingDevice { selector: String, devices: String },

    #[error("no Vulkan device has what wavetrace needs:\n{0}")]
    NoCapableDevice(String),

    #[error("device [{index}] {name} lacks what wavetrace needs: {missing}")]
    MissingCapabilities {
        index: usize,
        name: String,
        missing: String,
    },

    #[error("the GPU did not finish {what} within {seconds:.1} s: treated as a hang (raise WAVETRACE_GPU_TIMEOUT_S for very long passes)")]
    Timeout { what: String, seconds: f64 },

    #[error("the Vulkan device was lost during {0} (a GPU fault or a driver reset)")]
    DeviceLost(String),

    #[error("cannot allocate {bytes} bytes of GPU memory for `{name}`: {reason}")]
    OutOfMemory { name: String, bytes: u64, reason: String },

    #[error("`{name}` needs {bytes} bytes in one buffer, more than this device allocates at once ({limit} bytes): lower the resolution, the path slots or the scene's size")]
    TooLarge { name: String, bytes: u64, limit: u64 },

    #[error("`{name}`: {problem}")]
    InvalidUse { name: String, problem: String },

    #[error("cannot show a window: {0}")]
    Presentation(String),

    #[error("--capture: {0}")]
    Capture(String),

    #[error("{call} failed: {result}")]
    Vulkan { call: &'static str, result: vk::Result },
}

pub type GpuResult<T> = Result<T, GpuError>;

/// Turns a raw `vk::Result` into a `GpuError` that names the call.
pub(crate) trait VkResultExt<T> {
    fn vk(self, call: &'static str) -> GpuResult<T>;
}

impl<T> VkResultExt<T> for Result<T, vk::Result> {
    fn vk(self, call: &'static str) -> GpuResult<T> {
        self.map_err(|result| match result {
            vk::Result::ERROR_DEVICE_LOST => GpuError::DeviceLost(call.to_string()),
            result => GpuError::Vulkan { call, result },
        })
    }
}
