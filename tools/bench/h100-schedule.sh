#!/usr/bin/env bash
# Scheduling on the lent H100: GPU tests with validation, then samples/s of the wavefront under
# both schedulers, with the material sort and with the ray sort, against the megakernel, on the
# Cornell box, Cornell glass and the many-material scene at 1024 x 1024, and the Cornell box at
# several path-slot counts. Expects .device/ from tools/device-bundle.sh; writes under $OUT.
set -u
for f in .device/*.deb; do dpkg -x "$f" /; done
ldconfig
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
SPP=${SPP:-256}
RUNS=${RUNS:-2}
if [ "${TESTS:-1}" = 1 ]; then
  for t in wavefront wavefront_kernels reference light_selection lights; do
    echo "== $t"
    WAVETRACE_VALIDATION=1 timeout 300 ".device/tests/$t" --test-threads 1 2>&1
    echo "$t rc $?" >> "$OUT/tests-summary.txt"
  done > "$OUT/tests.txt" 2>&1
fi
python3 tools/scenes/many_materials.py /tmp/many > "$OUT/many-materials.txt" 2>&1
S=tests/scenes
.device/wavetrace render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1
render() { # name scene depth extra-args...
  local name=$1 scene=$2 depth=$3
  shift 3
  for run in $(seq "$RUNS"); do
    echo "== $name d$depth $* run $run"
    .device/wavetrace render "$scene" -o /tmp/render.exr --res 1024 1024 --spp "$SPP" --max-depth "$depth" --stats "$@"
  done
}
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
cat "$OUT/tests-summary.txt" 2>/dev/null
grep -E "^==|Msamples" "$OUT/renders.txt" | sed 's/ Wavefront integrator.*GPU, / /; s/ Megakernel integrator.*GPU, / /; s/ of the GPU.s.*submissions),//'
