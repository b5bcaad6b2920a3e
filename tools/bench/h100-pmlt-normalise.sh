#!/usr/bin/env bash
# PMLT's image normalised to the bootstrap's mean luminance, on and off (issue 14), on the lent
# H100: the pmlt tests with validation; ajar at 256 x 256, depth 8, --time 0.5 and 1, seeds 1-3
# (tools/bench/h100-pmlt-tune.sh); the 2560 x 1920 Cornell box at --time 5 against a 1024-spp
# path-traced render of the same call. Expects .device/ from tools/device-bundle.sh (with the
# pmlt tests) and .device/refs/ajar-256-d8.exr; writes under $OUT. The wide random scenes against
# Mitsuba with PMLT both ways are a call of their own (about 8 minutes for 24 seeds):
#   WIDE=1 INTEGRATORS="pmlt pmlt,--mlt-normalise,off" bash tools/bench/h100-mitsuba-check.sh
set -u
. "$(dirname "$0")/device.sh"
device_setup
run_tests pmlt
cat "$OUT/tests-summary.txt"
W=.device/wavetrace
SHAPES=1048576:1 STEPS=0.7:0.0078125 BOOTSTRAPS=1048576 TIMES="0.5 1" NORMALISE="on off" SEEDS="1 2 3" \
  bash tools/bench/h100-pmlt-tune.sh
box=tests/scenes/cornell-box/cornell-box.gltf
$W render $box -o /tmp/box-ref.exr --res 2560 1920 --max-depth 8 --spp 1024 > /dev/null 2>&1
for normalise in on off; do
  $W render $box -o /tmp/box.exr --res 2560 1920 --max-depth 8 --integrator pmlt --time 5 \
    --mlt-normalise $normalise --stats > /tmp/box.txt 2>&1
  echo "== cornell-box 2560x1920 pmlt --time 5 normalise $normalise"
  grep -E "^pmlt" /tmp/box.txt
  $W compare /tmp/box.exr /tmp/box-ref.exr
done | tee "$OUT/pmlt-box.txt"
