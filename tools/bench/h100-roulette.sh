#!/usr/bin/env bash
# Russian roulette on the lent H100 (issue 15's first item, issue 13's speed target): the
# Cornell box at 1024 x 1024, 256 spp, depth 8, path tracer and BDPT with roulette from depth 5
# (the default) and without (--rr-depth 0); ajar and cornell-glass at 256 x 256 against the
# references; then the GPU tests with validation. Expects .device/ from tools/device-bundle.sh
# (bdpt reference furnace wavefront) and the 256-pixel references in .device/refs/; writes
# under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
S=tests/scenes
W=.device/wavetrace
$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 --integrator bdpt > /dev/null 2>&1

{
  render pt $S/cornell-box/cornell-box.gltf 8
  render bdpt $S/cornell-box/cornell-box.gltf 8 --integrator bdpt
  RUNS=1 render pt-no-rr $S/cornell-box/cornell-box.gltf 8 --rr-depth 0
  RUNS=1 render bdpt-no-rr $S/cornell-box/cornell-box.gltf 8 --integrator bdpt --rr-depth 0
  RUNS=1 render glass-pt $S/cornell-glass/cornell-glass.gltf 8
  RUNS=1 render glass-pt-no-rr $S/cornell-glass/cornell-glass.gltf 8 --rr-depth 0
} > "$OUT/renders.txt" 2>&1

# quality NAME SCENE REF SPP [options...]: GPU seconds and relMSE of a 256 x 256 depth-8 render.
quality() {
  local name=$1 scene=$2 ref=$3 spp=$4
  shift 4
  $W render "$scene" -o "/tmp/$name.exr" --res 256 256 --spp "$spp" --max-depth 8 --stats --json "$@" > /tmp/stats.json
  seconds=$(python3 -c 'import json; print(json.load(open("/tmp/stats.json"))["gpu_seconds"])')
  error=$($W compare "/tmp/$name.exr" "$ref" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rel_mse"])')
  echo "$name spp $spp $*: gpu_s $seconds relMSE $error"
}
{
  quality ajar-pt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 4096
  quality ajar-pt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 4096 --rr-depth 0
  quality ajar-bdpt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 256 --integrator bdpt
  quality ajar-bdpt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 256 --integrator bdpt --rr-depth 0
  quality glass-pt $S/cornell-glass/cornell-glass.gltf .device/refs/cornell-glass-256-d8.exr 2048
  quality glass-pt $S/cornell-glass/cornell-glass.gltf .device/refs/cornell-glass-256-d8.exr 2048 --rr-depth 0
  quality glass-bdpt $S/cornell-glass/cornell-glass.gltf .device/refs/cornell-glass-256-d8.exr 128 --integrator bdpt
} > "$OUT/quality.txt" 2>&1

run_tests bdpt reference furnace wavefront
cat "$OUT/tests-summary.txt"
cat "$OUT/quality.txt"
grep -E "^==|Msamples|connect |extend |shade" "$OUT/renders.txt" | sed 's/ of the GPU.s.*submissions),//'
