//! Showing pixels in a window: the window's surface, its swapchain, and each frame's copy of
//! the viewer's display pixels (RGBA8 words in a buffer, sRGB-encoded) onto a swapchain
//! image, scaled to fit and centred. The copy is submitted to the queue the sample passes
//! use, after them, so that the image never goes through the CPU.

use std::sync::Arc;

use ash::vk;
use raw_window_handle::{RawDisplayHandle, RawWindowHandle};

use super::buffer::Buffer;
use super::commands::CommandBuffer;
use super::context::{Context, Shared};
use super::error::{GpuError, GpuResult, VkResultExt};
use super::image::{Image, ImageFormat};

/// The one mip level and layer of the images copied here.
const COLOR_LAYERS: vk::ImageSubresourceLayers = vk::ImageSubresourceLayers {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    mip_level: 0,
    base_array_layer: 0,
    layer_count: 1,
};
const COLOR_RANGE: vk::ImageSubresourceRange = vk::ImageSubresourceRange {
    aspect_mask: vk::ImageAspectFlags::COLOR,
    base_mip_level: 0,
    level_count: 1,
    base_array_layer: 0,
    layer_count: 1,
};

/// What the window shows around an image whose shape differs from the window's.
const BORDER: [f32; 4] = [0.05, 0.05, 0.05, 1.0];

pub struct Presenter {
    shared: Arc<Shared>,
    surface_loader: ash::khr::surface::Instance,
    swapchain_loader: ash::khr::swapchain::Device,
    surface: vk::SurfaceKHR,
    swapchain: vk::SwapchainKHR,
    images: Vec<vk::Image>,
    format: vk::SurfaceFormatKHR,
    extent: vk::Extent2D,
    /// Signalled when the acquired image may be written. One frame is in flight at a time
    /// (`commands` waits for the last), so one semaphore serves every frame.
    acquired: vk::Semaphore,
    /// Per swapchain image: signalled when its copy is done; presentation waits on it.
    copied: Vec<vk::Semaphore>,
    /// The display pixels as an image of their size, the source of the scaling blit.
    staging: Option<Image>,
    commands: CommandBuffer,
    /// The surface changed (a resize, an out-of-date or suboptimal swapchain): make the
    /// swapchain again before the next frame.
    stale: bool,
}

/// The sRGB formats a swapchain may take, preferred first. The staging image has the same
/// encoding, so that the blit copies the bytes the display kernel wrote.
const FORMATS: [vk::Format; 4] = [
    vk::Format::B8G8R8A8_UNORM,
    vk::Format::R8G8B8A8_UNORM,
    vk::Format::B8G8R8A8_SRGB,
    vk::Format::R8G8B8A8_SRGB,
];

impl Presenter {
    /// A presenter for the window; `context` must have been made with `presentation` set to
    /// the window's display.
    pub fn new(context: &Context, display: RawDisplayHandle, window: RawWindowHandle) -> GpuResult<Self> {
        let shared = &context.shared;
        let instance = &shared.instance;
        // SAFETY: the handles come from a live window that the caller keeps alive for as long
        // as the presenter (the viewer drops the presenter first).
        let surface = unsafe { ash_window::create_surface(&instance.entry, &instance.raw, display, window, None) }
            .map_err(|result| {
                GpuError::Presentation(format!("cannot make a Vulkan surface for the window ({result})"))
            })?;
        let surface_loader = ash::khr::surface::Instance::new(&instance.entry, &instance.raw);
        let presenter = (|| {
            // SAFETY: plain queries on this device's physical device and the new surface.
            let supported = unsafe {
                surface_loader.get_physical_device_surface_support(shared.adapter.raw, shared.queue_family, surface)
            }
            .vk("vkGetPhysicalDeviceSurfaceSupportKHR")?;
            if !supported {
                return Err(GpuError::Presentation(format!(
                    "{}'s render queue cannot present to this window",
                    shared.adapter.name
                )));
            }
            let swapchain_loader = ash::khr::swapchain::Device::new(&instance.raw, &shared.device);
            let semaphore = || {
                // SAFETY: plain object creation on the live device.
                unsafe {
                    shared
                        .device
                        .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
                }
                .vk("vkCreateSemaphore")
            };
            let acquired = semaphore()?;
            shared.set_name(acquired, "swapchain image acquired");
            Ok(Self {
                shared: Arc::clone(shared),
                surface_loader: surface_loader.clone(),
                swapchain_loader,
                surface,
                swapchain: vk::SwapchainKHR::null(),
                images: Vec::new(),
                format: vk::SurfaceFormatKHR::default(),
                extent: vk::Extent2D::default(),
                acquired,
                copied: Vec::new(),
                staging: None,
                commands: CommandBuffer::new(context, "present")?,
                stale: true,
            })
        })();
        if presenter.is_err() {
            // SAFETY: nothing else holds the surface yet.
            unsafe { surface_loader.destroy_surface(surface, None) };
        }
        presenter
    }

    /// The window changed size: the next frame makes a swapchain of the new size.
    pub fn resize(&mut self) {
        self.stale = true;
    }

    /// Shows `pixels` (`width` x `height` RGBA8 words, sRGB-encoded) in a window of
    /// `window_size`, scaled to fit and centred. `write_pixels` records the work that fills
    /// them (the display kernel), which runs in the same submission, before the copy.
    /// Nothing is shown while the window has no area (minimised).
    pub fn present(
        &mut self,
        context: &Context,
        window_size: (u32, u32),
        pixels: &Buffer,
        (width, height): (u32, u32),
        write_pixels: impl FnOnce(&mut CommandBuffer) -> GpuResult<()>,
    ) -> GpuResult<()> {
        if window_size.0 == 0 || window_size.1 == 0 {
            return Ok(());
        }
        if self.stale || (self.extent.width, self.extent.height) != window_size {
            self.make_swapchain(context, window_size)?;
        }
        if self
            .staging
            .as_ref()
            .is_none_or(|s| (s.width(), s.height()) != (width, height))
        {
            context.wait_for_all("the frames that read the old display image")?;
            self.staging = None;
            let format = staging_format(self.format.format);
            // SAMPLED only because every Image has a view, which needs a viewable usage.
            let usage =
                vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::SAMPLED;
            self.staging = Some(Image::create(context, "display", width, height, 1, format, usage)?);
        }
        // The last frame's submission waited on `acquired` and is done once `begin` returns.
        self.commands.begin(context)?;
        // SAFETY: the swapchain and semaphore are this presenter's; `acquired` is unsignalled
        // (the previous frame's submission, which waited on it, has finished above).
        let acquired = unsafe {
            self.swapchain_loader.acquire_next_image(
                self.swapchain,
                context.timeout().as_nanos() as u64,
                self.acquired,
                vk::Fence::null(),
            )
        };
        let index = match acquired {
            Ok((index, suboptimal)) => {
                self.stale |= suboptimal;
                index
            }
            Err(vk::Result::ERROR_OUT_OF_DATE_KHR) => {
                self.stale = true;
                return self.commands.end();
            }
            Err(result) => {
                return Err(GpuError::Vulkan {
                    call: "vkAcquireNextImageKHR",
                    result,
                })
            }
        };
        write_pixels(&mut self.commands)?;
        let staging = self.staging.as_ref().expect("made above");
        let target = self.images[index as usize];
        record_copy(&mut self.commands, pixels, staging, target, self.extent);
        self.commands.end()?;
        let signal = self.copied[index as usize];
        let ticket = context.submit_raw_with(
            &[self.commands.raw],
            &[(self.acquired, vk::PipelineStageFlags2::ALL_COMMANDS)],
            &[signal],
            "present",
        )?;
        self.commands.note_submission(ticket);
        let out_of_date = context.present(&self.swapchain_loader, self.swapchain, index, signal)?;
        self.stale |= out_of_date;
        Ok(())
    }

    fn make_swapchain(&mut self, context: &Context, (width, height): (u32, u32)) -> GpuResult<()> {
        let shared = Arc::clone(&self.shared);
        context.wait_for_all("the frames before a swapchain change")?;
        if self.swapchain != vk::SwapchainKHR::null() {
            context.wait_queue_idle()?;
        }
        let physical = shared.adapter.raw;
        // SAFETY: plain queries on the physical device and this presenter's surface.
        let (capabilities, formats) = unsafe {
            (
                self.surface_loader
                    .get_physical_device_surface_capabilities(physical, self.surface)
                    .vk("vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?,
                self.surface_loader
                    .get_physical_device_surface_formats(physical, self.surface)
                    .vk("vkGetPhysicalDeviceSurfaceFormatsKHR")?,
            )
        };
        let format = choose_format(&shared, &formats, &capabilities)?;
        // Where the surface fixes its size, that size; else the window's, within the limits.
        let extent = if capabilities.current_extent.width != u32::MAX {
            capabilities.current_extent
        } else {
            vk::Extent2D {
                width: width.clamp(capabilities.min_image_extent.width, capabilities.max_image_extent.width),
                height: height.clamp(
                    capabilities.min_image_extent.height,
                    capabilities.max_image_extent.height,
                ),
            }
        };
        let mut image_count = capabilities.min_image_count + 1;
        if capabilities.max_image_count > 0 {
            image_count = image_count.min(capabilities.max_image_count);
        }
        let old = self.swapchain;
        let info = vk::SwapchainCreateInfoKHR::default()
            .surface(self.surface)
            .min_image_count(image_count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .image_sharing_mode(vk::SharingMode::EXCLUSIVE)
            .pre_transform(capabilities.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            // FIFO is the one mode every device has; a pass usually takes longer than a
            // refresh, so it costs the path tracer nothing.
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true)
            .old_swapchain(old);
        // SAFETY: the surface is alive and the old swapchain, if any, is idle (waited above).
        let swapchain = unsafe { self.swapchain_loader.create_swapchain(&info, None) }.vk("vkCreateSwapchainKHR")?;
        self.destroy_swapchain();
        self.swapchain = swapchain;
        // SAFETY: the swapchain was just created.
        self.images = unsafe { self.swapchain_loader.get_swapchain_images(swapchain) }.vk("vkGetSwapchainImagesKHR")?;
        for (i, &image) in self.images.iter().enumerate() {
            shared.set_name(image, &format!("swapchain image {i}"));
            // SAFETY: plain object creation on the live device.
            let semaphore = unsafe {
                shared
                    .device
                    .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            }
            .vk("vkCreateSemaphore")?;
            shared.set_name(semaphore, &format!("swapchain image {i} copied"));
            self.copied.push(semaphore);
        }
        self.format = format;
        self.extent = extent;
        self.stale = false;
        if self
            .staging
            .as_ref()
            .is_some_and(|s| s.format() != staging_format(format.format))
        {
            self.staging = None;
        }
        log::info!(
            "swapchain: {}x{} {:?}, {} images",
            extent.width,
            extent.height,
            format.format,
            self.images.len()
        );
        Ok(())
    }

    /// Destroys the swapchain and its semaphores; the caller has waited for the queue to be idle.
    fn destroy_swapchain(&mut self) {
        // SAFETY: nothing in flight uses them (the callers wait for the queue to be idle first,
        // presents included).
        unsafe {
            for semaphore in self.copied.drain(..) {
                self.shared.device.destroy_semaphore(semaphore, None);
            }
            if self.swapchain != vk::SwapchainKHR::null() {
                self.swapchain_loader.destroy_swapchain(self.swapchain, None);
            }
        }
        self.swapchain = vk::SwapchainKHR::null();
        self.images.clear();
    }
}

/// The first of `FORMATS` the surface offers in sRGB colour space, if its images can be
/// copied and blitted to.
fn choose_format(
    shared: &Shared,
    formats: &[vk::SurfaceFormatKHR],
    capabilities: &vk::SurfaceCapabilitiesKHR,
) -> GpuResult<vk::SurfaceFormatKHR> {
    let format = FORMATS
        .iter()
        .find_map(|&wanted| {
            formats
                .iter()
                .find(|f| f.format == wanted && f.color_space == vk::ColorSpaceKHR::SRGB_NONLINEAR)
        })
        .copied()
        .ok_or_else(|| {
            GpuError::Presentation(format!(
                "the window offers no 8-bit sRGB format (it offers {formats:?})"
            ))
        })?;
    if !capabilities
        .supported_usage_flags
        .contains(vk::ImageUsageFlags::TRANSFER_DST)
    {
        return Err(GpuError::Presentation(
            "the window's images cannot be copied to (no TRANSFER_DST usage)".into(),
        ));
    }
    // SAFETY: a plain query on the physical device.
    let features = unsafe {
        shared
            .instance
            .raw
            .get_physical_device_format_properties(shared.adapter.raw, format.format)
    }
    .optimal_tiling_features;
    if !features.contains(vk::FormatFeatureFlags::BLIT_DST) {
        return Err(GpuError::Presentation(format!(
            "{:?} cannot be blitted to",
            format.format
        )));
    }
    Ok(format)
}

fn is_srgb(format: vk::Format) -> bool {
    matches!(format, vk::Format::B8G8R8A8_SRGB | vk::Format::R8G8B8A8_SRGB)
}

fn staging_format(format: vk::Format) -> ImageFormat {
    if is_srgb(format) {
        ImageFormat::Rgba8Srgb
    } else {
        ImageFormat::Rgba8Unorm
    }
}

impl Drop for Presenter {
    fn drop(&mut self) {
        if self.shared.busy_after_hang() {
            return;
        }
        let context = Context {
            shared: Arc::clone(&self.shared),
        };
        if let Err(error) = context
            .wait_for_all("the last frame")
            .and_then(|()| context.wait_queue_idle())
        {
            log::error!("closing the window: {error}");
            return;
        }
        self.destroy_swapchain();
        // SAFETY: the GPU is idle (waited above) and nothing else holds these objects.
        unsafe {
            self.shared.device.destroy_semaphore(self.acquired, None);
            self.surface_loader.destroy_surface(self.surface, None);
        }
    }
}

/// The largest rectangle of the image's shape that fits `extent`, centred: (x0, y0, x1, y1).
pub fn fit_rectangle(image: (u32, u32), extent: (u32, u32)) -> (i32, i32, i32, i32) {
    let scale = (extent.0 as f64 / image.0 as f64).min(extent.1 as f64 / image.1 as f64);
    let w = ((image.0 as f64 * scale).round() as u32).clamp(1, extent.0);
    let h = ((image.1 as f64 * scale).round() as u32).clamp(1, extent.1);
    let x0 = (extent.0 - w) / 2;
    let y0 = (extent.1 - h) / 2;
    (x0 as i32, y0 as i32, (x0 + w) as i32, (y0 + h) as i32)
}

fn layout_barrier(
    image: vk::Image,
    old: vk::ImageLayout,
    new: vk::ImageLayout,
    src: (vk::PipelineStageFlags2, vk::AccessFlags2),
    dst: (vk::PipelineStageFlags2, vk::AccessFlags2),
) -> vk::ImageMemoryBarrier2<'static> {
    vk::ImageMemoryBarrier2::default()
        .src_stage_mask(src.0)
        .src_access_mask(src.1)
        .dst_stage_mask(dst.0)
        .dst_access_mask(dst.1)
        .old_layout(old)
        .new_layout(new)
        .image(image)
        .subresource_range(COLOR_RANGE)
}

/// The pixels into the staging image, and the staging image into the swapchain image, fitted.
fn record_copy(
    commands: &mut CommandBuffer,
    pixels: &Buffer,
    staging: &Image,
    target: vk::Image,
    extent: vk::Extent2D,
) {
    use vk::AccessFlags2 as A;
    use vk::ImageLayout as L;
    use vk::PipelineStageFlags2 as S;
    let device = commands.raw_device().clone();
    let raw = commands.raw;
    let barrier = |images: &[vk::ImageMemoryBarrier2], memory: &[vk::MemoryBarrier2]| {
        let dependency = vk::DependencyInfo::default()
            .image_memory_barriers(images)
            .memory_barriers(memory);
        // SAFETY: the command buffer is recording (the caller began it).
        unsafe { device.cmd_pipeline_barrier2(raw, &dependency) };
    };
    let transfer_write = (S::ALL_TRANSFER, A::TRANSFER_WRITE);
    let pixels_written = vk::MemoryBarrier2::default()
        .src_stage_mask(S::COMPUTE_SHADER)
        .src_access_mask(A::SHADER_WRITE)
        .dst_stage_mask(S::ALL_TRANSFER)
        .dst_access_mask(A::TRANSFER_READ);
    barrier(
        &[
            layout_barrier(
                staging.raw,
                L::UNDEFINED,
                L::TRANSFER_DST_OPTIMAL,
                (S::ALL_TRANSFER, A::TRANSFER_READ),
                transfer_write,
            ),
            layout_barrier(
                target,
                L::UNDEFINED,
                L::TRANSFER_DST_OPTIMAL,
                (S::ALL_COMMANDS, A::NONE),
                transfer_write,
            ),
        ],
        &[pixels_written],
    );
    let whole = COLOR_LAYERS;
    let (width, height) = (staging.width(), staging.height());
    let region = vk::BufferImageCopy::default()
        .image_subresource(whole)
        .image_extent(vk::Extent3D {
            width,
            height,
            depth: 1,
        });
    let clear = vk::ClearColorValue { float32: BORDER };
    let everything = COLOR_RANGE;
    // SAFETY: the buffer holds width x height words (the caller's contract), both images are
    // in TRANSFER_DST_OPTIMAL (barrier above), and the command buffer is recording.
    unsafe {
        device.cmd_copy_buffer_to_image(raw, pixels.raw, staging.raw, L::TRANSFER_DST_OPTIMAL, &[region]);
        device.cmd_clear_color_image(raw, target, L::TRANSFER_DST_OPTIMAL, &clear, &[everything]);
    }
    barrier(
        &[
            layout_barrier(
                staging.raw,
                L::TRANSFER_DST_OPTIMAL,
                L::TRANSFER_SRC_OPTIMAL,
                transfer_write,
                (S::ALL_TRANSFER, A::TRANSFER_READ),
            ),
            layout_barrier(
                target,
                L::TRANSFER_DST_OPTIMAL,
                L::TRANSFER_DST_OPTIMAL,
                transfer_write,
                transfer_write,
            ),
        ],
        &[],
    );
    record_fitted_blit(&device, raw, staging, target, extent);
    barrier(
        &[layout_barrier(
            target,
            L::TRANSFER_DST_OPTIMAL,
            L::PRESENT_SRC_KHR,
            transfer_write,
            (S::ALL_COMMANDS, A::NONE),
        )],
        &[],
    );
}

/// The staging image, scaled to fit and centred, into the swapchain image (both in their
/// transfer layouts).
fn record_fitted_blit(
    device: &ash::Device,
    raw: vk::CommandBuffer,
    staging: &Image,
    target: vk::Image,
    extent: vk::Extent2D,
) {
    use vk::ImageLayout as L;
    let whole = COLOR_LAYERS;
    let (width, height) = (staging.width(), staging.height());
    let (x0, y0, x1, y1) = fit_rectangle((width, height), (extent.width, extent.height));
    let blit = vk::ImageBlit::default()
        .src_subresource(whole)
        .src_offsets([
            vk::Offset3D::default(),
            vk::Offset3D {
                x: width as i32,
                y: height as i32,
                z: 1,
            },
        ])
        .dst_subresource(whole)
        .dst_offsets([vk::Offset3D { x: x0, y: y0, z: 0 }, vk::Offset3D { x: x1, y: y1, z: 1 }]);
    // Pixel for pixel where the sizes agree, so that the window shows the kernel's bytes.
    let filter = if (x1 - x0, y1 - y0) == (width as i32, height as i32) {
        vk::Filter::NEAREST
    } else {
        vk::Filter::LINEAR
    };
    // SAFETY: layouts as set by the barriers above; the regions lie inside both images.
    unsafe {
        device.cmd_blit_image(
            raw,
            staging.raw,
            L::TRANSFER_SRC_OPTIMAL,
            target,
            L::TRANSFER_DST_OPTIMAL,
            &[blit],
            filter,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::fit_rectangle;

    #[test]
    fn an_image_fits_the_window_centred_with_its_shape() {
        assert_eq!(fit_rectangle((64, 48), (64, 48)), (0, 0, 64, 48));
        assert_eq!(fit_rectangle((100, 50), (200, 200)), (0, 50, 200, 150));
        assert_eq!(fit_rectangle((50, 100), (200, 100)), (75, 0, 125, 100));
        assert_eq!(fit_rectangle((1000, 1), (10, 10)), (0, 4, 10, 5));
    }
}
