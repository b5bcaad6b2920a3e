#!/usr/bin/env bash
# Shader execution reordering (--reorder on, the default where the device has it, against
# --reorder off) on the lent H100 (issue 15, item 3): both must give the same image bits (the
# reorder moves threads, not arithmetic; 256 x 256, 16 spp, validation on); then 1024 x 1024,
# 256 spp, depth 8, default roulette, two runs each, the megakernel and the wavefront on the
# Cornell box, cornell-glass, ajar and many-materials. Expects .device/ from
# tools/device-bundle.sh; writes under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
make_many_materials
S=tests/scenes
W=.device/wavetrace
path_of() { [ "$1" = many-materials ] && echo /tmp/many/many-materials.gltf || echo "$S/$1/$1.gltf"; }
for scene in cornell-box all-features; do
  for integrator in megakernel wavefront; do
    for reorder in on off; do
      WAVETRACE_VALIDATION=1 $W render "$(path_of $scene)" -o /tmp/$reorder.exr --res 256 256 --spp 16 \
        --integrator $integrator --reorder $reorder 2>> "$OUT/validation.txt"
    done
    echo "$scene $integrator: $(cmp -s /tmp/on.exr /tmp/off.exr && echo same bits || $W compare /tmp/on.exr /tmp/off.exr)"
  done
done > "$OUT/images.txt" 2>&1
for scene in cornell-box cornell-glass ajar many-materials; do
  for integrator in megakernel wavefront; do
    for reorder in on off; do
      for run in 1 2; do
        m=$($W render "$(path_of $scene)" -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 \
          --integrator $integrator --reorder $reorder --stats --json 2>> "$OUT/stderr.txt" \
          | python3 -c 'import json,sys; s=json.load(sys.stdin); print(round(s["samples_per_second"] / 1e6, 1))')
        echo "$scene $integrator reorder $reorder run $run: $m Msamples/s"
      done
    done
  done
done > "$OUT/renders.txt" 2>&1
grep -ciE "validation.*error|VUID" "$OUT/validation.txt"
cat "$OUT/images.txt" "$OUT/renders.txt"
