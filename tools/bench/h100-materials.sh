#!/usr/bin/env bash
# Materials and lights on the lent H100: the GPU tests of the materials issue with validation,
# then samples/s and per-kernel time on the textured many-material scene with and without an
# environment map, material sort off and on, against the megakernel; and the untextured
# scenes of the scheduling issue again (what the glTF BSDF costs them). Expects .device/ from
# tools/device-bundle.sh; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
if [ "${TESTS:-1}" = 1 ]; then
  run_tests bsdf furnace environment textures punctual all_features reference wavefront light_selection
fi
python3 tools/scenes/many_materials.py /tmp/many > "$OUT/scenes.txt" 2>&1
python3 tools/scenes/many_materials.py /tmp/many --textured >> "$OUT/scenes.txt" 2>&1
python3 tools/scenes/sky.py /tmp/sky.hdr 2048 >> "$OUT/scenes.txt" 2>&1
S=tests/scenes
T=/tmp/many/many-materials-textured.gltf
.device/wavetrace render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
{
  for depth in 3 8; do
    render cornell-box $S/cornell-box/cornell-box.gltf $depth
    render many-materials /tmp/many/many-materials.gltf $depth
    render textured $T $depth
    render textured $T $depth --material-sort on
    render textured $T $depth --integrator megakernel
    render textured+env $T $depth --env /tmp/sky.hdr
    render textured+env $T $depth --env /tmp/sky.hdr --material-sort on
    render textured+env $T $depth --env /tmp/sky.hdr --integrator megakernel
  done
  render cornell-box $S/cornell-box/cornell-box.gltf 8 --integrator megakernel
  render all-features $S/all-features/all-features.gltf 8 --env /tmp/sky.hdr --env-strength 0.5
} > "$OUT/renders.txt" 2>&1
.device/wavetrace render $T -o "$OUT/textured-env.png" --res 1024 1024 --spp 1024 --env /tmp/sky.hdr > /dev/null 2>&1
.device/wavetrace render $S/all-features/all-features.gltf -o "$OUT/all-features.png" --res 1024 1024 --spp 1024 --env /tmp/sky.hdr --env-strength 0.5 > /dev/null 2>&1
summarise
