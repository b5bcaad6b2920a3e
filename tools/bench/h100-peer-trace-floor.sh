#!/usr/bin/env bash
# The same rays traced by wavetrace and by Mitsuba 3 (OptiX) on the lent H100 (issue 15): for each
# scene, `bench_trace_floor --dump-rays` records a render's extension and shadow rays and times its
# own trivial shaders on them, in the render's order and in a megakernel's pixel-major order (a
# pixel's samples in neighbouring lanes, as Mitsuba lays out its lanes); `peer/mitsuba_trace_floor.py`
# traces the same rays, in the same orders, through Mitsuba's scene built from the same glTF.
# Mitsuba also renders each scene (1024 x 1024, 256 spp), to set its time a sample against its tracing
# of wavetrace's rays. SCENES (default: "cornell-box many-materials ajar"), DEPTHS (default 8), SPP
# (default 16; a ray takes 40 bytes of the device's memory in the log and 64 on disk, two orders).
# Expects .device/examples/bench_trace_floor and Mitsuba's slimmed wheels in .device/peer
# (`bash tools/bench/peer/slim_wheel.sh .device/peer`); writes under $OUT, prints a table last.
set -u
. "$(dirname "$0")/device.sh"
device_setup
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .device/peer/*.whl
export PYTHONPATH=/tmp/site
S=tests/scenes
for name in ${SCENES:-cornell-box many-materials ajar}; do
  case $name in
    many-materials) [ -e /tmp/many/many-materials.gltf ] || make_many_materials; scene=/tmp/many/many-materials.gltf ;;
    *) scene=$S/$name/$name.gltf ;;
  esac
  for depth in ${DEPTHS:-8}; do
    echo "== $name d$depth" >> "$OUT/floor.txt"
    .device/examples/bench_trace_floor "$scene" --spp "${SPP:-16}" --max-depth "$depth" --capacity 100000000 \
      --dump-rays /tmp/rays >> "$OUT/floor.txt" 2>&1
    for order in recorded pixel-major; do
      timeout 600 python3 tools/bench/peer/mitsuba_trace_floor.py "$scene" "/tmp/rays/$order" 2>> "$OUT/mitsuba-stderr.txt" \
        | sed "s/^/$name d$depth $order /" >> "$OUT/peer-trace.txt"
    done
    rm -rf /tmp/rays
    # Mitsuba's own render of the scene at this depth (1024 x 1024, 256 spp, its default roulette), to
    # set its time a sample against its tracing of wavetrace's rays.
    timeout 600 python3 tools/bench/peer/mitsuba_time.py "$scene" "$name" --res 1024 --spp 256 --max-depth "$depth" \
      --runs 2 2>> "$OUT/mitsuba-stderr.txt" >> "$OUT/mitsuba-render.txt"
  done
done
python3 - "$OUT/peer-trace.txt" <<'PY'
import json, sys
print("| scene | order | rays (ext + shadow) | hits equal | wavetrace: ext + shadow ms | Mitsuba (OptiX): ext + shadow ms | Mitsuba / wavetrace |")
print("|---|---|---|---|---|---|---|")
for line in open(sys.argv[1]):
    name, depth, order, text = line.split(" ", 3)
    name = f"{name} {depth}"
    r = json.loads(text); w = r["wavetrace"]; e = r["extension"]; s = r["shadow"]
    same = w["extension_hits"] == e["hits"] and w["shadow_blocked"] == s["hits"]
    cost = lambda x, y: f"{x:.2f} + {y:.2f} = {x + y:.2f}"
    ours = w["extension_ms"] + w["shadow_ms"]; theirs = e["gpu_ms"] + s["gpu_ms"]
    print(f"| {name} | {order} | {e['rays']} + {s['rays']} | {same} ({w['extension_hits']}/{e['hits']}, {w['shadow_blocked']}/{s['hits']}) "
          f"| {cost(w['extension_ms'], w['shadow_ms'])} | {cost(e['gpu_ms'], s['gpu_ms'])} | {theirs / ours:.2f} |")
PY
grep -h msamples "$OUT/mitsuba-render.txt" | python3 -c '
import json, sys
for line in sys.stdin:
    r = json.loads(line); print("Mitsuba renders", r["scene"], "d%d" % r["max_depth"], r["msamples_per_s"], "Msamples/s:", round(1e3 / r["msamples_per_s"], 3), "ns a sample")'
