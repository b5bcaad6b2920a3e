#!/usr/bin/env bash
# Issue 16's soak on the H100: the CLI's peak resident memory over 1,000 / 10,000 / 30,000
# megakernel samples at 8x8 (one launch each since the megakernel launches many samples at
# once), without and with validation, then tests/soak.rs at 10,000 and 40,000 passes (a
# submission each). Needs .device/ from `bash tools/device-bundle.sh soak`. Output on stdout.
set -uo pipefail
source tools/bench/device.sh
device_setup
W=.device/wavetrace
S=tests/scenes/cornell-box/cornell-box.gltf
peak() {
  "$@" > /dev/null 2>&1 &
  local pid=$! hwm=0 now
  while kill -0 "$pid" 2>/dev/null; do
    now=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$now" ] && hwm=$now
    sleep 0.2
  done
  wait "$pid"
  echo "rc $? peak ${hwm} kB: $*"
}
for validation in 0 1; do
  for passes in 1000 10000 30000; do
    echo -n "validation $validation: "
    WAVETRACE_VALIDATION=$validation peak "$W" render "$S" -o /tmp/soak.exr --res 8 8 --spp "$passes" --integrator megakernel
  done
done
for passes in 10000 40000; do
  WAVETRACE_VALIDATION=1 WAVETRACE_SOAK_PASSES=$passes .device/tests/soak --nocapture 2>&1 | grep -E "soak:|test result|panicked"
done
