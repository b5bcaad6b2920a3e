#!/usr/bin/env bash
# BDPT's camera subpaths sharing light subpaths (`--bdpt-light-share`, issue 13) on the lent
# H100, at equal time: for each scene of SCENES (with a 256-pixel depth-8 reference in
# .device/refs/), each share of SHARES and each seed of SEEDS, a 256 x 256 render of $SPP spp
# (1024) at depth 8, its relMSE against the reference and its GPU seconds from --stats.
# Writes $OUT/bdpt-light-share.txt. Expects .device/ from tools/device-bundle.sh.
set -u
. "$(dirname "$0")/device.sh"
device_setup
W=.device/wavetrace
$W render tests/scenes/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 16 --integrator bdpt > /dev/null 2>&1
for scene in ${SCENES:-cornell-box ajar cornell-glass}; do
  for share in ${SHARES:-1 2 4}; do
    for seed in ${SEEDS:-1 2}; do
      $W render "tests/scenes/$scene/$scene.gltf" -o /tmp/share.exr --res 256 256 --spp "${SPP:-1024}" --max-depth 8 \
        --integrator bdpt --bdpt-light-share "$share" --seed "$seed" --stats > /tmp/share.txt 2>&1
      gpu=$(grep -o '[0-9.]* s GPU' /tmp/share.txt | head -1)
      compare=$($W compare /tmp/share.exr ".device/refs/$scene-256-d8.exr" 2>&1 | grep -i relmse)
      echo "$scene share $share seed $seed: $gpu $(grep -o '[0-9.]* Msamples/s' /tmp/share.txt | head -1); $compare"
    done
  done
done > "$OUT/bdpt-light-share.txt" 2>&1
cat "$OUT/bdpt-light-share.txt"
