#!/usr/bin/env bash
# Parallel Metropolis light transport's run on the lent H100 (docs/H100.md, issue 14's targets):
# * ajar, 256 x 256, depth 8: relMSE against the reference after growing budgets for the path
#   tracer, BDPT and PMLT, each with its GPU and wall seconds, from which the time to relMSE
#   0.004 is read (docs/PMLT.md);
# * the Cornell box at 2560 x 1920, depth 8: PMLT for growing time budgets against a path-traced
#   reference of the same size (its own noise stated);
# * acceptance rates per path length (--stats);
# then the pmlt GPU tests with validation (TESTS=0 skips them). Expects .device/ from
# tools/device-bundle.sh and .device/refs/ajar-256-d8.exr; writes everything under $OUT.
set -u
. "$(dirname "$0")/device.sh"
device_setup
S=tests/scenes
W=.device/wavetrace
$W info > "$OUT/info.txt" 2>&1
$W render $S/cornell-box/cornell-box.gltf -o /tmp/warm.exr --res 64 64 --spp 4 --integrator pmlt --mlt-bootstrap 4096 > /dev/null 2>&1

# ajar NAME [options...]: a 256 x 256 depth-8 render's seconds and relMSE against the reference.
ajar() {
  local name=$1
  shift
  $W render $S/ajar/ajar.gltf -o "/tmp/$name.exr" --res 256 256 --max-depth 8 --stats --json "$@" > /tmp/stats.json 2> /tmp/stderr.txt
  python3 - "$name" "$*" /tmp/stats.json <<'PY'
import json, subprocess, sys
name, options, path = sys.argv[1:4]
s = json.load(open(path))
c = json.loads(subprocess.run([".device/wavetrace", "compare", f"/tmp/{name}.exr", ".device/refs/ajar-256-d8.exr", "--json"], capture_output=True, text=True).stdout)
print(f"{name} [{options}]: gpu_s {s['gpu_seconds']:.4f} wall_s {s['wall_seconds']:.4f} relMSE {c['rel_mse']:.6f} mean {[round(m, 4) for m in c['mean_ratio']]}")
if s.get("pmlt"):
    p = s["pmlt"]
    print(f"  pmlt: {p['chains']} chains x {p['proposals']}, {p['iterations']} iterations in {p['iteration_seconds']:.3f} s, bootstrap {p['bootstrap_samples']} in {p['bootstrap_rounds']} round(s), {p['bootstrap_seconds']:.3f} s, {p['splats_per_second']/1e6:.1f} M splats/s")
    for l in p["lengths"]:
        print(f"    length {l['length']}: b {l['b']:.5f} (+-{100*l['b_relative_error']:.2f}% of {l['bootstrap_samples']}) lit {100*l['nonzero_share']:.1f}% chains {l['chains']} acceptance {l['acceptance']:.3f} moves {l['move_rate']:.3f}")
PY
}

{
  for spp in 1024 4096; do ajar pt-$spp --spp $spp; done
  for spp in 64 256; do ajar bdpt-$spp --spp $spp --integrator bdpt; done
  for t in 0.5 2 8; do ajar pmlt-$t --spp 1 --integrator pmlt --time $t; done
  ajar pmlt-2-p16 --spp 1 --integrator pmlt --time 2 --mlt-chains 65536 --mlt-proposals 16
} > "$OUT/ajar.txt" 2>&1

{
  $W render $S/cornell-box/cornell-box.gltf -o /tmp/cornell-ref.exr --res 2560 1920 --spp 1024 --max-depth 8 --stats 2>&1 | sed -n 1p
  $W render $S/cornell-box/cornell-box.gltf -o /tmp/cornell-ref2.exr --res 2560 1920 --spp 1024 --max-depth 8 --seed 7 2>&1 | sed -n 1p
  echo "reference against a second of its kind: $($W compare /tmp/cornell-ref2.exr /tmp/cornell-ref.exr --json | tr -d '\n ')"
  for t in 5 20; do
    $W render $S/cornell-box/cornell-box.gltf -o /tmp/cornell-pmlt.exr --res 2560 1920 --spp 1 --max-depth 8 --integrator pmlt --time $t --stats 2>&1 | grep -E "Pmlt integrator|^pmlt"
    echo "pmlt --time $t: $($W compare /tmp/cornell-pmlt.exr /tmp/cornell-ref.exr --json | tr -d '\n ')"
  done
  $W render $S/cornell-box/cornell-box.gltf -o /tmp/cornell-bdpt.exr --res 2560 1920 --spp 16 --max-depth 8 --integrator bdpt --stats 2>&1 | sed -n 1p
  echo "bdpt 16 spp: $($W compare /tmp/cornell-bdpt.exr /tmp/cornell-ref.exr --json | tr -d '\n ')"
} > "$OUT/cornell-2560.txt" 2>&1

if [ "${TESTS:-1}" = 1 ]; then
  run_tests pmlt bdpt
fi
cat "$OUT/tests-summary.txt" 2>/dev/null
cat "$OUT/ajar.txt" "$OUT/cornell-2560.txt"
