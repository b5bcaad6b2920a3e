#!/usr/bin/env bash
# wavetrace against Mitsuba 3 (cuda_ad_rgb, OptiX) on the lent H100, in one device call (issue
# 15's table): 1024 x 1024, 256 spp, both with their default Russian roulette (from depth 5)
# and both without it, on the Cornell box (depth 3 and 8), cornell-glass, ajar and the
# many-materials scene (tools/scenes/many_materials.py), Msamples/s, two runs each.
# INTEGRATORS (default: wavefront): which of wavetrace's integrators run (wavefront, megakernel),
# each optionally with a trace backend after a colon (wavefront:software: our own traversal);
# ROULETTES (default: "5 0"): the roulette depths, 0 for none.
# Expects .device/ from tools/device-bundle.sh and Mitsuba's slimmed wheels in .device/peer
# (`bash tools/bench/peer/slim_wheel.sh .device/peer`); writes under $OUT and prints the table.
set -u
. "$(dirname "$0")/device.sh"
device_setup
python3 -m pip install -q --no-index --no-deps --upgrade --target /tmp/site .device/peer/*.whl
export PYTHONPATH=/tmp/site
case " ${SCENES:-many-materials} " in *" many-materials "*)
  python3 tools/scenes/many_materials.py /tmp/many > "$OUT/many-materials.txt" 2>&1
  python3 tools/scenes/many_materials.py /tmp/many --textured >> "$OUT/many-materials.txt" 2>&1 ;;
esac
# Variants of many-materials that tell the triangles' cost from the materials' (named in SCENES only):
# Lambertian spheres only, spheres of 32 x 12 segments (16,908 triangles in all), and both.
for name in ${SCENES:-}; do
  case $name in
    many-materials-diffuse) python3 tools/scenes/many_materials.py /tmp/many --diffuse --name $name ;;
    many-materials-lowpoly) python3 tools/scenes/many_materials.py /tmp/many --slices 32 --stacks 12 --name $name ;;
    many-materials-diffuse-lowpoly)
      python3 tools/scenes/many_materials.py /tmp/many --diffuse --slices 32 --stacks 12 --name $name ;;
  esac
done >> "$OUT/many-materials.txt" 2>&1
W=.device/wavetrace
S=tests/scenes
$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 256 256 --spp 4 > /dev/null 2>&1

# measure LABEL SCENE DEPTH: one line per run and renderer: label, renderer, roulette, Msamples/s.
measure() {
  local label=$1 scene=$2 depth=$3
  for rr in ${ROULETTES:-5 0}; do
    for entry in ${INTEGRATORS:-wavefront}; do
      integrator=${entry%%:*}
      trace=$([ "$entry" = "$integrator" ] && echo auto || echo "${entry#*:}")
      renderer=$([ "$integrator" = wavefront ] && echo wavetrace || echo "$integrator")
      [ "$trace" = auto ] || renderer="$renderer-$trace"
      for run in 1 2; do
        m=$($W render "$scene" -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth "$depth" --rr-depth "$rr" \
          --integrator "$integrator" --trace "$trace" --stats --json 2>> "$OUT/wavetrace-stderr.txt" \
          | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["samples_per_second"] / 1e6, 1))')
        echo "$label d$depth $renderer rr$rr $m"
      done
    done
    # Mitsuba: a start depth past max_depth turns its roulette off.
    mitsuba_rr=$([ "$rr" = 0 ] && echo 100 || echo 5)
    timeout "${PEER_TIMEOUT_S:-240}" python3 tools/bench/peer/mitsuba_time.py "$scene" "$label" --res 1024 --spp 256 --max-depth "$depth" --runs 2 \
      --rr-depth "$mitsuba_rr" 2>> "$OUT/mitsuba-stderr.txt" \
      | python3 -c 'import json,sys
for line in sys.stdin:
    r = json.loads(line); print(r["scene"], "d%d" % r["max_depth"], "mitsuba", sys.argv[1], r["msamples_per_s"])' "rr$rr"
  done
}
# SCENES (default: all): which of cornell-box-d3 cornell-box cornell-glass ajar many-materials (and the
# variants above).
for name in ${SCENES:-cornell-box-d3 cornell-box cornell-glass ajar many-materials}; do
  case $name in
    cornell-box-d3) measure cornell-box $S/cornell-box/cornell-box.gltf 3 ;;
    many-materials*) measure "$name" "/tmp/many/$name.gltf" 8 ;;
    *) measure "$name" "$S/$name/$name.gltf" 8 ;;
  esac
done >> "$OUT/peer.txt" 2>&1
# The textured variant of many-materials: wavetrace alone (the converter has no textures).
case " ${SCENES:-many-materials} " in *" many-materials "*)
  for rr in ${ROULETTES:-5 0}; do
    m=$($W render /tmp/many/many-materials-textured.gltf -o /tmp/render.exr --res 1024 1024 --spp 256 --max-depth 8 \
      --rr-depth "$rr" --stats --json 2>> "$OUT/wavetrace-stderr.txt" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["samples_per_second"] / 1e6, 1))')
    echo "many-materials-textured d8 wavetrace rr$rr $m" >> "$OUT/peer.txt"
  done ;;
esac
# The table: the mean of the runs, each of wavetrace's integrators against Mitsuba, per roulette.
python3 - "$OUT/peer.txt" <<'PY'
import collections, sys
runs = collections.defaultdict(list)
for line in open(sys.argv[1]):
    parts = line.split()
    if len(parts) == 5:
        runs[(parts[0], parts[1], parts[2], parts[3])].append(float(parts[4]))
mean = lambda k: sum(runs[k]) / len(runs[k]) if runs.get(k) else None
fmt = lambda v: "%.1f" % v if v else "-"
ours = [r for r in dict.fromkeys(k[2] for k in runs) if r != "mitsuba"]
roulettes = list(dict.fromkeys(k[3] for k in runs))
header = ["scene"]
for rr in roulettes:
    header += ["%s %s" % (r, rr) for r in ours] + ["Mitsuba " + rr] + ["%s/Mitsuba %s" % (r, rr) for r in ours]
print("| " + " | ".join(header) + " |")
print("|" + "---|" * len(header))
for scene, depth in dict.fromkeys((k[0], k[1]) for k in runs):
    cells = []
    for rr in roulettes:
        m = mean((scene, depth, "mitsuba", rr))
        values = [mean((scene, depth, r, rr)) for r in ours]
        cells += [fmt(v) for v in values] + [fmt(m)] + ["%.2fx" % (v / m) if v and m else "-" for v in values]
    print("| %s %s | %s |" % (scene, depth, " | ".join(cells)))
PY
