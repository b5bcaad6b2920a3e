#!/usr/bin/env bash
# PMLT on the lent H100 beside tools/bench/h100-pmlt.sh: ajar with three seeds at 2^20 bootstrap samples a
# length (the means), chains x proposals shapes at equal time, and large steps only. Expects .device/.
. tools/bench/device.sh; device_setup
W=.device/wavetrace; S=tests/scenes
for seed in 1 2 3; do
  $W render $S/ajar/ajar.gltf -o /tmp/a.exr --res 256 256 --max-depth 8 --integrator pmlt --time 2 --mlt-chains 65536 --mlt-proposals 16 --mlt-bootstrap 1048576 --seed $seed --stats 2>&1 | grep -E "^pmlt"
  echo "ajar seed $seed boot 2^20: $($W compare /tmp/a.exr .device/refs/ajar-256-d8.exr --json | tr -d '\n ')"
done
for cfg in "262144 4" "1048576 1"; do set -- $cfg
  $W render $S/ajar/ajar.gltf -o /tmp/a.exr --res 256 256 --max-depth 8 --integrator pmlt --time 2 --mlt-chains $1 --mlt-proposals $2 --mlt-bootstrap 1048576 --stats 2>&1 | grep -E "^pmlt"
  echo "ajar chains $1 x $2: $($W compare /tmp/a.exr .device/refs/ajar-256-d8.exr --json | tr -d '\n ')"
done
$W render $S/ajar/ajar.gltf -o /tmp/a.exr --res 256 256 --max-depth 8 --integrator pmlt --time 2 --mlt-chains 65536 --mlt-proposals 16 --mlt-bootstrap 1048576 --mlt-small-step 0 2>&1 | grep -E "^pmlt"
echo "ajar large steps only: $($W compare /tmp/a.exr .device/refs/ajar-256-d8.exr --json | tr -d '\n ')"
