#!/usr/bin/env bash
# Bidirectional path tracing's run on the lent H100 (docs/H100.md, issue 13's targets):
# * ajar, 256 x 256, depth 8: path tracer and BDPT against the reference (relMSE x GPU time);
# * cornell-glass, 256 x 256, depth 8: the caustic under the sphere (crop) and the whole image;
# * Cornell box, 1024 x 1024, 256 spp, depth 8: samples/s of the path tracer and of BDPT with
#   each splat film, and where BDPT's time goes (--stats);
# * the same image bits from 2^20 and 2^23 path slots (light vertex planes past 4 GiB);
# * all-features, 128 x 128, depth 6: BDPT's mean against the path tracer's at high spp;
# then the BDPT GPU tests with validation (TESTS=0 skips them; QUALITY=0 the ajar and glass
# runs). Every render twice, for the spread. Expects .device/ from tools/device-bundle.sh and the 256-pixel references in
# .device/refs/ (docs/BDPT.md); writes everything under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
S=tests/scenes
W=.device/wavetrace
$W info > "$OUT/info.txt" 2>&1
$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 --integrator bdpt > /dev/null 2>&1

# quality NAME SCENE REF SPP [options...]: a 256 x 256 depth-8 render's GPU seconds and its
# relMSE against REF, over the whole image and over the crop $CROP if set.
quality() {
  local name=$1 scene=$2 ref=$3 spp=$4
  shift 4
  for run in 1 2; do
    $W render "$scene" -o "/tmp/$name.exr" --res 256 256 --spp "$spp" --max-depth 8 --stats --json "$@" > /tmp/stats.json
    seconds=$(python3 -c 'import json; print(json.load(open("/tmp/stats.json"))["gpu_seconds"])')
    whole=$($W compare "/tmp/$name.exr" "$ref" --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rel_mse"])')
    region=-
    if [ -n "${CROP:-}" ]; then
      # shellcheck disable=SC2086 # four numbers
      region=$($W compare "/tmp/$name.exr" "$ref" --crop $CROP --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["rel_mse"])')
    fi
    echo "$name spp $spp run $run: gpu_s $seconds relMSE $whole crop_relMSE $region"
  done
}

if [ "${QUALITY:-1}" = 1 ]; then {
  quality ajar-pt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 4096
  quality ajar-bdpt $S/ajar/ajar.gltf .device/refs/ajar-256-d8.exr 256 --integrator bdpt
  # The caustic the glass sphere focuses on the floor (docs/BDPT.md).
  CROP="56 215 60 28"
  quality glass-pt $S/cornell-glass/cornell-glass.gltf .device/refs/cornell-glass-256-d8.exr 2048
  quality glass-bdpt $S/cornell-glass/cornell-glass.gltf .device/refs/cornell-glass-256-d8.exr 128 --integrator bdpt
  unset CROP
} > "$OUT/quality.txt" 2>&1; fi

{
  for slots in 1048576 8388608; do
    $W render $S/cornell-box/cornell-box.gltf -o "/tmp/slots-$slots.exr" --res 512 512 --spp 64 --max-depth 8 \
      --integrator bdpt --path-slots $slots > /dev/null
  done
  cmp /tmp/slots-1048576.exr /tmp/slots-8388608.exr && echo "2^20 and 2^23 slots: the same bits"
  for seed in 1 2; do
    $W render $S/all-features/all-features.gltf -o /tmp/af-pt.exr --res 128 128 --spp 16384 --max-depth 6 --seed $seed > /dev/null
    $W render $S/all-features/all-features.gltf -o /tmp/af-bdpt.exr --res 128 128 --spp 4096 --max-depth 6 --seed $seed \
      --integrator bdpt > /dev/null
    echo "all-features seed $seed, bdpt 4096 spp against the path tracer 16384 spp: $($W compare /tmp/af-bdpt.exr /tmp/af-pt.exr --json)"
  done
} > "$OUT/consistency.txt" 2>&1

{
  render pt $S/cornell-box/cornell-box.gltf 8
  render bdpt-fixed $S/cornell-box/cornell-box.gltf 8 --integrator bdpt
  render bdpt-float $S/cornell-box/cornell-box.gltf 8 --integrator bdpt --splat-film float
  render bdpt-cas $S/cornell-box/cornell-box.gltf 8 --integrator bdpt --splat-film cas
} > "$OUT/renders.txt" 2>&1

if [ "${TESTS:-1}" = 1 ]; then
  # shellcheck disable=SC2086 # a list of names
  run_tests ${TEST_NAMES:-bdpt bdpt_mis emission camera_projection}
fi
cat "$OUT/tests-summary.txt" 2>/dev/null
cat "$OUT/quality.txt" 2>/dev/null
cat "$OUT/consistency.txt"
grep -E "^==|Msamples" "$OUT/renders.txt" | sed 's/ of the GPU.s.*submissions),//'
