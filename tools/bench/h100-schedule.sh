#!/usr/bin/env bash
# Scheduling on the lent H100: GPU tests with validation, then samples/s of the wavefront under
# both schedulers, with the material sort and with the ray sort, against the megakernel, on the
# Cornell box, Cornell glass and the many-material scene at 1024 x 1024, and the Cornell box at
# several path-slot counts. Expects .device/ from tools/device-bundle.sh; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
if [ "${TESTS:-1}" = 1 ]; then
  run_tests wavefront wavefront_kernels reference light_selection lights
fi
python3 tools/scenes/many_materials.py /tmp/many > "$OUT/many-materials.txt" 2>&1
S=tests/scenes
.device/wavetrace render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
{
  for depth in 3 8; do
    for scene in cornell-box cornell-glass; do
      render $scene $S/$scene/$scene.gltf $depth --schedule gpu
      render $scene $S/$scene/$scene.gltf $depth --schedule cycles
      render $scene $S/$scene/$scene.gltf $depth --schedule gpu --material-sort on
      render $scene $S/$scene/$scene.gltf $depth --schedule gpu --ray-sort on
      render $scene $S/$scene/$scene.gltf $depth --schedule gpu --ray-sort on --material-sort on
      render $scene $S/$scene/$scene.gltf $depth --integrator megakernel
    done
    render many-materials /tmp/many/many-materials.gltf $depth --schedule gpu
    render many-materials /tmp/many/many-materials.gltf $depth --schedule cycles
    render many-materials /tmp/many/many-materials.gltf $depth --schedule gpu --material-sort on
    render many-materials /tmp/many/many-materials.gltf $depth --schedule gpu --ray-sort off
    render many-materials /tmp/many/many-materials.gltf $depth --schedule gpu --ray-sort on --material-sort on
    render many-materials /tmp/many/many-materials.gltf $depth --integrator megakernel
  done
  for slots in 262144 1048576 4194304 16777216; do
    render cornell-box $S/cornell-box/cornell-box.gltf 8 --schedule gpu --path-slots $slots
    render many-materials /tmp/many/many-materials.gltf 8 --schedule gpu --path-slots $slots
  done
} > "$OUT/renders.txt" 2>&1
summarise
