#!/usr/bin/env bash
# tools/mitsuba-check.sh on the lent H100: random scenes of REFERENCE.md's subset rendered by
# Mitsuba 3 (cuda_ad_rgb, OptiX) and by wavetrace's integrators on the NVIDIA driver (the
# pipeline backend), compared. SEEDS (default 1 to 24), MITSUBA_SPP and WAVETRACE_SPP (16384).
# Expects .device/ from tools/device-bundle.sh and Mitsuba's slimmed wheels in .device/peer
# (`bash tools/bench/peer/slim_wheel.sh .device/peer`); writes $OUT/mitsuba-check.txt.
set -u
. "$(dirname "$0")/device.sh"
device_setup
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .device/peer/*.whl
MITSUBA_SITE=/tmp/site MITSUBA_VARIANT=cuda_ad_rgb WAVETRACE=.device/wavetrace KEEP=/tmp/random \
  MITSUBA_SPP=${MITSUBA_SPP:-16384} WAVETRACE_SPP=${WAVETRACE_SPP:-16384} \
  bash tools/mitsuba-check.sh ${SEEDS:-$(seq 1 24)} > "$OUT/mitsuba-check.txt" 2>&1
echo "rc $?" >> "$OUT/mitsuba-check.txt"
cat "$OUT/mitsuba-check.txt"
