// SPDX-License-Identifier: GPL-3.0-or-later
//
// A Flamenco 3 job type for wavetrace: one task a partial render (a sample range of a tile of
// a frame), then one merge task a frame that depends on them. Written from Flamenco's public
// documentation (flamenco.blender.org: "Job Types" for JOB_TYPE and compileJob(), "List of
// Commands" for the worker's commands); not run against a live Manager here. docs/SCALE.md
// says how to install it.
//
// Install: put this file in `scripts/` beside the flamenco-manager executable and restart the
// Manager. Workers that render must list the task type "wavetrace" in their
// flamenco-worker.yaml (`task_types: [wavetrace, misc]`) and have wavetrace on their PATH (or
// set the job's `wavetrace` setting); the scene and output folders must be on storage every
// worker sees under the same path (Flamenco's shared storage).
//
// Every part is a pure function of the scene, the settings and its sample range, so a task
// Flamenco re-queues after a worker fails renders the same bits, and the merge gives the
// image one machine would have rendered.

const JOB_TYPE = {
  label: "wavetrace partial renders",
  settings: [
    { key: "wavetrace", type: "string", default: "wavetrace", description: "The wavetrace executable on the workers" },
    { key: "scene", type: "string", subtype: "file_path", required: true, description: "The glTF scene (.gltf, .glb)" },
    { key: "output", type: "string", subtype: "file_path", required: true,
      description: "The image; # runs are the frame number (frame.####.exr)" },
    { key: "width", type: "int32", default: 1920 },
    { key: "height", type: "int32", default: 1080 },
    { key: "spp", type: "int32", default: 1024, description: "Samples per pixel of the whole image" },
    { key: "max_depth", type: "int32", default: 8 },
    { key: "seed", type: "int32", default: 0 },
    { key: "frames", type: "string", default: "", description: "A..B renders the animation's frames A to B - 1; empty: a still" },
    { key: "fps", type: "float", default: 24.0 },
    { key: "sample_parts", type: "int32", default: 4, description: "Sample ranges the image is cut into" },
    { key: "tiles_x", type: "int32", default: 2 },
    { key: "tiles_y", type: "int32", default: 2 },
    { key: "extra_args", type: "string", default: "", description: "More `wavetrace render` options, space-separated" },
  ],
};

// n cut into k nearly equal ranges, as [start, end) pairs.
function cut(n, k) {
  const ranges = [];
  for (let i = 0; i < k; i++) {
    const start = Math.floor((n * i) / k);
    const end = Math.floor((n * (i + 1)) / k);
    if (start < end) ranges.push([start, end]);
  }
  return ranges;
}

// The output of one frame: a run of # replaced by the zero-padded number (as `wavetrace
// render --frames` names them).
function framePath(output, frame) {
  if (frame === null) return output;
  const match = output.match(/#+/);
  if (!match) return output.replace(/(\.[^./]*)?$/, (ext) => "." + String(frame).padStart(4, "0") + ext);
  return output.replace(match[0], String(frame).padStart(match[0].length, "0"));
}

function compileJob(job) {
  const s = job.settings;
  const extra = s.extra_args.split(" ").filter((a) => a.length > 0);
  const common = ["--res", String(s.width), String(s.height), "--max-depth", String(s.max_depth),
    "--seed", String(s.seed), "--fps", String(s.fps)].concat(extra);
  let frames = [null];
  if (s.frames !== "") {
    const [first, end] = s.frames.split("..").map((n) => parseInt(n, 10));
    frames = [];
    for (let f = first; f < end; f++) frames.push(f);
  }
  for (const frame of frames) {
    const image = framePath(s.output, frame);
    const frameArgs = frame === null ? [] : ["--frames", `${frame}..${frame + 1}`];
    const parts = [];
    const partTasks = [];
    for (const [first, end] of cut(s.spp, s.sample_parts)) {
      for (const [x0, x1] of cut(s.width, s.tiles_x)) {
        for (const [y0, y1] of cut(s.height, s.tiles_y)) {
          // Beside the image, so that no folder needs making; --frames names it by frame too.
          const part = `${s.output}.part-${parts.length}.exr`;
          const task = author.Task(`frame ${frame === null ? "still" : frame} part ${parts.length}: samples ${first}..${end}, tile ${x0} ${y0}`, "wavetrace");
          task.addCommand(author.Command("exec", {
            exe: s.wavetrace,
            args: ["render", s.scene, "-o", part, "--samples", `${first}..${end}`,
              "--tile", String(x0), String(y0), String(x1 - x0), String(y1 - y0)].concat(frameArgs, common),
          }));
          job.addTask(task);
          partTasks.push(task);
          parts.push(framePath(part, frame));
        }
      }
    }
    const merge = author.Task(`frame ${frame === null ? "still" : frame}: merge ${parts.length} parts`, "wavetrace");
    merge.addCommand(author.Command("exec", { exe: s.wavetrace, args: ["merge"].concat(parts, ["-o", image]) }));
    for (const task of partTasks) merge.addDependency(task);
    job.addTask(merge);
  }
}
