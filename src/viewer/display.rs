//! The viewer's display kernel (`film/display.comp`) and what it writes: the film's running
//! mean as RGBA8 words, with the overlay's mask laid over it, ready for `gpu::Presenter`.

use crate::film::{Display, Film};
use crate::gpu::shaders::ids;
use crate::gpu::{
    Buffer, BufferUsage, CommandBuffer, ComputePipeline, Context, DispatchSize, GpuResult, MemoryLocation,
};
use crate::interface::{DisplayPush, DISPLAY_GROUP, FILM_SCALE};

use super::overlay::Overlay;

pub struct DisplayKernel {
    pipeline: ComputePipeline<DisplayPush>,
    pixels: Buffer,
    size: (u32, u32),
    overlay: Option<(Buffer, Overlay)>,
}

impl DisplayKernel {
    pub fn new(context: &Context, (width, height): (u32, u32)) -> GpuResult<Self> {
        Ok(Self {
            pipeline: ComputePipeline::new(context, ids::FILM_DISPLAY, &[])?,
            pixels: Buffer::gpu_storage(context, "display pixels", u64::from(width) * u64::from(height) * 4)?,
            size: (width, height),
            overlay: None,
        })
    }

    /// The RGBA8 words the kernel writes, one per pixel, row after row.
    pub fn pixels(&self) -> &Buffer {
        &self.pixels
    }

    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// The text laid over the image from the next frame on; `None`: none. The previous
    /// overlay's buffer is freed only once the frames that read it are done (the caller's
    /// presenter waits for its last frame before recording the next).
    pub fn set_overlay(&mut self, context: &Context, overlay: Option<Overlay>) -> GpuResult<()> {
        if self.overlay.as_ref().map(|(_, o)| o) == overlay.as_ref() {
            return Ok(());
        }
        context.wait_for_all("the frames that show the old overlay")?;
        self.overlay = match overlay {
            None => None,
            Some(overlay) if overlay.words.is_empty() => None,
            Some(overlay) => {
                let mut buffer = Buffer::new(
                    context,
                    "overlay",
                    overlay.words.len() as u64 * 4,
                    BufferUsage::STORAGE,
                    MemoryLocation::CpuToGpu,
                )?;
                buffer.write(0, &overlay.words)?;
                Some((buffer, overlay))
            }
        };
        Ok(())
    }

    /// Records the kernel: the mean of `samples` per pixel in `film`, as `display` shows it.
    pub fn record(&self, commands: &mut CommandBuffer, film: &Film, samples: u32, display: &Display) {
        // The passes that wrote the film ran in earlier submissions.
        commands.compute_barrier();
        let (width, height) = self.size;
        let (overlay, overlay_width, overlay_height) = match &self.overlay {
            Some((buffer, o)) => (buffer.address(), o.width, o.height),
            None => (0, 0, 0),
        };
        let push = DisplayPush {
            film: film.address(),
            pixels: self.pixels.address(),
            overlay,
            width,
            height,
            mean_scale: display.scale() / (FILM_SCALE * samples.max(1) as f32),
            tone_map: display.tone_map.gpu_code(),
            overlay_width,
            overlay_height,
        };
        let size = DispatchSize {
            x: width.div_ceil(DISPLAY_GROUP),
            y: height.div_ceil(DISPLAY_GROUP),
        };
        commands.begin_label("display");
        commands.dispatch(&self.pipeline, &push, size);
        commands.end_label();
    }
}
