#!/usr/bin/env bash
# PMLT's mutation, chain shape and bootstrap at equal time on the lent H100 (issue 14): ajar,
# 256 x 256, depth 8, relMSE against the reference with the bootstrap's and the iterations'
# seconds from --stats, for every combination of SHAPES ("chains:proposals"), STEPS
# ("small-step-probability:sigma"), BOOTSTRAPS (uniform samples a length), TIMES (--time,
# seconds of iterations), MIS (--mlt-large-step-mis: on, off or both), IMPORTANCE
# (--mlt-pixel-importance: on, off or both), NORMALISE (--mlt-normalise: on, off or both) and
# SEEDS. Expects .device/
# from tools/device-bundle.sh and .device/refs/ajar-256-d8.exr; writes $OUT/pmlt-tune.txt.
set -u
. "$(dirname "$0")/device.sh"
device_setup
W=.device/wavetrace
$W render tests/scenes/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 64 64 --spp 4 --integrator pmlt --mlt-bootstrap 4096 > /dev/null 2>&1
for shape in ${SHAPES:-262144:4 1048576:1}; do
  for step in ${STEPS:-0.7:0.015625}; do
    for bootstrap in ${BOOTSTRAPS:-262144}; do
      for time in ${TIMES:-1}; do
        for mis in ${MIS:-on}; do
          for importance in ${IMPORTANCE:-on}; do
          for normalise in ${NORMALISE:-on}; do
          for seed in ${SEEDS:-1}; do
            $W render tests/scenes/ajar/ajar.gltf -o /tmp/tune.exr --res 256 256 --max-depth 8 --integrator pmlt \
              --time "$time" --mlt-chains "${shape%:*}" --mlt-proposals "${shape#*:}" --mlt-bootstrap "$bootstrap" \
              --mlt-small-step "${step%:*}" --mlt-sigma "${step#*:}" --mlt-large-step-mis "$mis" --mlt-pixel-importance "$importance" --mlt-normalise "$normalise" --seed "$seed" \
              --stats > /tmp/tune.txt 2>&1
            echo "== chains:proposals $shape small-step:sigma $step bootstrap $bootstrap time $time mis $mis importance $importance normalise $normalise seed $seed"
            grep -E "^pmlt|^  length|^  accept" /tmp/tune.txt
            echo "compare $($W compare /tmp/tune.exr .device/refs/ajar-256-d8.exr --json | tr -d '\n ')"
          done
          done
          done
        done
      done
    done
  done
done > "$OUT/pmlt-tune.txt" 2>&1
grep -E "^==|^pmlt|^compare|accept " "$OUT/pmlt-tune.txt"
