#!/usr/bin/env bash
# PMLT's bootstrap rounds on the lent H100: the pmlt tests with validation; seed 8 of the wide
# random scenes (a length-3 b_k from 0.2% of the bootstrap's samples) with one round and with
# the default rounds, seeds of PMLT's own, against a 65,536-spp path-traced render of the same
# binary; and how many rounds the benchmark scenes take at the defaults (ajar 256 x 256 and the
# 2560 x 1920 Cornell box, which should take one). Expects .device/ from tools/device-bundle.sh;
# writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
run_tests pmlt
read -r width height depth < <(python3 tools/scenes/random_scene.py 8 /tmp/r8.gltf --wide)
read -r -a sky < <(python3 -c "
import json, os
e = json.load(open('/tmp/r8.gltf'))['asset']['extras']['environment']
print('--env', os.path.join('/tmp', e['map']), '--env-rotation', e['rotation'], '--env-strength', e['strength'])")
common=(--res "$width" "$height" --max-depth "$depth" "${sky[@]}")
{
  .device/wavetrace render /tmp/r8.gltf -o /tmp/r8-ref.exr "${common[@]}" --spp 65536 --seed 99
  for seed in ${SEEDS:-1 2 3 4}; do
    for rounds in 1 16; do
      echo "== seed 8, pmlt --seed $seed --mlt-bootstrap-rounds $rounds"
      .device/wavetrace render /tmp/r8.gltf -o /tmp/r8.exr "${common[@]}" --spp 16384 --integrator pmlt \
        --seed "$seed" --mlt-bootstrap-rounds "$rounds" --stats 2>&1 | grep -E "^pmlt:|length|WARN"
      .device/wavetrace compare /tmp/r8.exr /tmp/r8-ref.exr
    done
  done
  echo "== ajar 256 x 256, depth 8, --time 0.5"
  .device/wavetrace render tests/scenes/ajar/ajar.gltf -o /tmp/ajar.exr --res 256 256 --max-depth 8 \
    --integrator pmlt --time 0.5 --stats 2>&1 | grep -E "^pmlt:|length|WARN"
  echo "== cornell-box 2560 x 1920, depth 8, --time 5"
  .device/wavetrace render tests/scenes/cornell-box/cornell-box.gltf -o /tmp/cornell.exr --res 2560 1920 \
    --max-depth 8 --integrator pmlt --time 5 --stats 2>&1 | grep -E "^pmlt:|length|WARN"
} > "$OUT/renders.txt" 2>&1
cat "$OUT/tests-summary.txt"
cat "$OUT/renders.txt"
