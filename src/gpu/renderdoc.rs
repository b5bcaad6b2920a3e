//! Frame captures through RenderDoc's in-application API (renderdoc_app.h): when wavetrace
//! runs under RenderDoc, `librenderdoc.so` is already loaded into the process, and
//! `RENDERDOC_GetAPI` hands out a table of functions, of which wavetrace uses the ones that
//! bracket a capture. Work between `start` and `end` lands in one capture, with the debug
//! names and labels the rest of `gpu/` gives every buffer, pipeline and kernel.
//!
//! Debian 12's RenderDoc (1.24) predates ray tracing in Vulkan: under it the device offers no
//! acceleration structures, so only compute work can be captured (docs/VIEWER.md).

use std::ffi::{c_char, c_int, c_void};
use std::path::PathBuf;

use ash::vk::Handle;

use super::context::Context;
use super::error::{GpuError, GpuResult};

/// eRENDERDOC_API_Version_1_1_2: every function used here exists from it on.
const API_VERSION: c_int = 10102;
/// dlopen's RTLD_NOLOAD on Linux: find the library only if it is loaded already, so that
/// asking never loads RenderDoc into a process that runs without it.
const RTLD_NOLOAD: c_int = 0x4;

type GetApi = unsafe extern "C" fn(version: c_int, api: *mut *mut c_void) -> c_int;
type StartFrameCapture = unsafe extern "C" fn(device: *mut c_void, window: *mut c_void);
type EndFrameCapture = unsafe extern "C" fn(device: *mut c_void, window: *mut c_void) -> u32;
type GetNumCaptures = unsafe extern "C" fn() -> u32;
type GetCapture = unsafe extern "C" fn(index: u32, filename: *mut c_char, length: *mut u32, timestamp: *mut u64) -> u32;

/// RENDERDOC_API_1_1_2: a struct of function pointers, of which these are used (by index).
#[repr(C)]
struct ApiTable {
    unused_0_to_12: [*const c_void; 13],
    get_num_captures: GetNumCaptures,
    get_capture: GetCapture,
    unused_15_to_18: [*const c_void; 4],
    start_frame_capture: StartFrameCapture,
    is_frame_capturing: *const c_void,
    end_frame_capture: EndFrameCapture,
}

pub struct RenderDoc {
    // Keeps the library's reference count up while the table is in use.
    _library: libloading::Library,
    api: *const ApiTable,
}

impl RenderDoc {
    /// RenderDoc's API, if this process runs under RenderDoc; an error that says how to run it
    /// there if not.
    pub fn attach() -> GpuResult<Self> {
        let not_loaded = |detail: String| {
            GpuError::Capture(format!(
                "wavetrace is not running under RenderDoc ({detail}): start it from RenderDoc's UI or \
                 as `renderdoccmd capture wavetrace ...` (Debian: apt-get install renderdoccmd)"
            ))
        };
        // SAFETY: RTLD_NOLOAD never runs a library's initialisers: it only finds one that the
        // process has loaded already (RenderDoc's, which is then initialised).
        let library = unsafe {
            libloading::os::unix::Library::open(Some("librenderdoc.so"), libloading::os::unix::RTLD_NOW | RTLD_NOLOAD)
        }
        .map_err(|_| not_loaded("librenderdoc.so is not loaded".into()))?;
        let library = libloading::Library::from(library);
        // SAFETY: RENDERDOC_GetAPI has this signature in every RenderDoc since 1.0.
        let get_api: libloading::Symbol<GetApi> = unsafe { library.get(b"RENDERDOC_GetAPI\0") }
            .map_err(|e| not_loaded(format!("librenderdoc.so has no RENDERDOC_GetAPI: {e}")))?;
        let mut api: *mut c_void = std::ptr::null_mut();
        // SAFETY: `api` is a valid out-pointer; RenderDoc fills it with a static table.
        let ok = unsafe { get_api(API_VERSION, &mut api) };
        if ok != 1 || api.is_null() {
            return Err(GpuError::Capture("this RenderDoc does not offer API 1.1.2".into()));
        }
        Ok(Self {
            _library: library,
            api: api as *const ApiTable,
        })
    }

    /// RenderDoc's name for the Vulkan instance: the dispatch table its handle points to.
    fn device_pointer(context: &Context) -> *mut c_void {
        let instance = context.shared.instance.raw.handle().as_raw() as *const *mut c_void;
        // SAFETY: a dispatchable Vulkan handle points to its loader dispatch table
        // (RENDERDOC_DEVICEPOINTER_FROM_VKINSTANCE); the instance is alive.
        unsafe { *instance }
    }

    /// Starts capturing the work `context` submits.
    pub fn start(&self, context: &Context) {
        // SAFETY: the table is RenderDoc's, valid while the library is loaded; a null window
        // means "whatever window", which headless renders have none of.
        unsafe { ((*self.api).start_frame_capture)(Self::device_pointer(context), std::ptr::null_mut()) };
    }

    /// Ends the capture `start` began; returns the capture file RenderDoc wrote.
    pub fn end(&self, context: &Context) -> GpuResult<PathBuf> {
        // SAFETY: as in `start`.
        let ok = unsafe { ((*self.api).end_frame_capture)(Self::device_pointer(context), std::ptr::null_mut()) };
        if ok != 1 {
            return Err(GpuError::Capture("RenderDoc could not finish the capture".into()));
        }
        // SAFETY: as in `start`; GetCapture writes at most `length` bytes, asked for first.
        unsafe {
            let count = ((*self.api).get_num_captures)();
            let index = count.saturating_sub(1);
            let mut length = 0u32;
            if count == 0
                || ((*self.api).get_capture)(index, std::ptr::null_mut(), &mut length, std::ptr::null_mut()) != 1
            {
                return Err(GpuError::Capture("RenderDoc lists no capture".into()));
            }
            let mut name = vec![0u8; length as usize + 1];
            ((*self.api).get_capture)(index, name.as_mut_ptr().cast(), &mut length, std::ptr::null_mut());
            let end = name.iter().position(|&b| b == 0).unwrap_or(name.len());
            Ok(PathBuf::from(String::from_utf8_lossy(&name[..end]).into_owned()))
        }
    }
}
