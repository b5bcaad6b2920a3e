#!/usr/bin/env bash
# Issue 20 on lent H200s (device kind nvidia-h200-x2, or nvidia-h200 where the pair is not
# lent): the scale tests under validation on the real GPUs (two contexts of one GPU where
# there is one); the Cornell box and the many-materials scene, depth 8, 1024 x 1024, 1,024
# spp, on one H200 (an ordinary render, and the chunked path on each device alone) and on
# both (--devices 0,1; with one GPU, two contexts of it: --devices 0,0), two runs each, every
# image compared bit for bit with the ordinary render; then a farm's costs: the Cornell render as 16 partial renders in
# separate processes (4 sample ranges x 2 x 2 tiles), their merge against the whole. Needs
# .device/ from `bash tools/device-bundle.sh scale progressive animation scale_cli`; writes
# under $OUT.
set -uo pipefail
source tools/bench/device.sh
device_setup
nvidia-smi --query-gpu=index,name,driver_version,pci.bus_id --format=csv,noheader > "$OUT/device.txt" 2>&1
.device/wavetrace info >> "$OUT/device.txt" 2>&1
make_many_materials
# The CLI tests run the binary where cargo built it.
mkdir -p target/release && cp .device/wavetrace target/release/wavetrace
run_tests scale progressive animation scale_cli
W=.device/wavetrace
common=(--res 1024 1024 --spp 1024 --max-depth 8 --stats --json)
if [ "$(nvidia-smi -L | wc -l)" -ge 2 ]; then device_sets="0 1 0,1"; else device_sets="0 0,0"; fi
{
  for scene in tests/scenes/cornell-box/cornell-box.gltf /tmp/many/many-materials.gltf; do
    name=$(basename "$scene" .gltf)
    for run in 1 2; do
      echo "== $name one H200 (ordinary render) run $run"
      WAVETRACE_DEVICE=0 $W render "$scene" "${common[@]}" -o "/tmp/$name-one.exr"
      for devices in $device_sets; do
        echo "== $name --devices $devices run $run"
        $W render "$scene" "${common[@]}" --devices "$devices" -o "/tmp/$name-$devices.exr"
        cmp "/tmp/$name-one.exr" "/tmp/$name-$devices.exr" && echo "bit-identical: $name --devices $devices"
      done
    done
  done
} > "$OUT/scale.txt" 2>&1
{
  scene=tests/scenes/cornell-box/cornell-box.gltf
  parts=()
  for range in 0..256 256..512 512..768 768..1024; do
    for tile in "0 0 512 512" "512 0 512 512" "0 512 512 512" "512 512 512 512"; do
      part=/tmp/part-${#parts[@]}.exr
      start=$(date +%s.%N)
      # shellcheck disable=SC2086
      WAVETRACE_DEVICE=0 $W render "$scene" --res 1024 1024 --max-depth 8 --samples $range --tile $tile --stats --json -o "$part" > /tmp/part.json
      end=$(date +%s.%N)
      python3 -c "import json,sys; s=json.load(open('/tmp/part.json')); print('part', '$range', '$tile', 'process_s', round($end-$start, 3), 'render_s', round(s.get('render_seconds', s.get('wall_seconds', 0)), 3), 'bytes', $(stat -c %s "$part"))"
      parts+=("$part")
    done
  done
  start=$(date +%s.%N)
  $W merge "${parts[@]}" -o /tmp/merged.exr
  end=$(date +%s.%N)
  echo "merge of 16 parts: $(python3 -c "print(round($end-$start, 3))") s"
  cmp /tmp/merged.exr /tmp/cornell-box-one.exr && echo "bit-identical: merged 16 parts"
} > "$OUT/farm.txt" 2>&1
python3 - "$OUT/scale.txt" <<'PY' | tee "$OUT/summary.txt"
import json, re, sys
text = open(sys.argv[1]).read()
for block in re.split(r"^== ", text, flags=re.M)[1:]:
    title, _, body = block.partition("\n")
    try:
        stats = json.loads(body[body.index("{"):body.rindex("}") + 1])
    except ValueError:
        print(title, "no stats:", body[:300].replace("\n", " ")); continue
    samples = 1024 * 1024 * 1024
    seconds = stats.get("render_seconds") or stats["wall_seconds"]
    devices = ", ".join(f"{d['device']}: {d['chunks']} chunks {d['camera_paths']/d['busy_seconds']/1e6:.0f} Ms/s idle {d['idle_seconds']:.3f} s setup {d['setup_seconds']:.2f} s" for d in stats.get("devices", []))
    print(f"{title}: {seconds:.3f} s, {samples/seconds/1e6:.1f} Msamples/s (wall) {devices}")
PY
grep bit-identical "$OUT/scale.txt" "$OUT/farm.txt"
cat "$OUT/tests-summary.txt"
tail -3 "$OUT/farm.txt"
