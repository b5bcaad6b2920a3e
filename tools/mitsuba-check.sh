#!/usr/bin/env bash
# wavetrace against Mitsuba 3 on random scenes of REFERENCE.md's subset (tools/scenes/random_scene.py):
# each seed's scene rendered by Mitsuba (scalar_rgb on the CPU, back faces two-sided as the
# conventions say) and by each wavetrace integrator at the same resolution and depth, then
# compared with `wavetrace compare`. The reference is four Mitsuba renders of a quarter of the
# samples with other seeds, averaged; "ref noise" is the standard error of its mean (relative,
# the worst channel, from the four means: rough where rare paths carry the light). A mean ratio
# further from 1 than 2% (the conventions' tolerance) and three times that noise is marked
# MISMATCH, and the script fails; a scene that Mitsuba renders black must be black here too.
# A mismatch can be Mitsuba's: where an emitter pierces an occluder, its shadow rays, which stop
# 1e-3 of their length short, let millimetres of the emitter behind it through (docs/BENCHMARKS.md,
# seed 56). Check a mismatch against the strategies of --integrator bdpt and a CPU integral.
# Mitsuba 3.9.1 and numpy are installed with pip into $MITSUBA_SITE the first time.
#
# WIDE=1 checks the scenes of random_scene.py --wide instead (textures, smooth normals, punctual
# lights, a constant environment or an environment map), converted by
# tools/scenes/gltf2mitsuba_wide.py.
#
# usage: tools/mitsuba-check.sh [SEED...]   (default: 1 to 8)
#   WIDE (unset), MITSUBA_SPP (4096), WAVETRACE_SPP (4096), INTEGRATORS ("wavefront megakernel bdpt";
#   an entry may add options after commas, as "pmlt,--mlt-normalise,off"),
#   WAVETRACE (target/release/wavetrace), KEEP (a folder for the scenes and images; default a temporary one),
#   MITSUBA_VARIANT (scalar_rgb; cuda_ad_rgb on an NVIDIA GPU, as tools/bench/h100-mitsuba-check.sh runs it)
set -euo pipefail
cd "$(dirname "$0")/.."
site=${MITSUBA_SITE:-${XDG_CACHE_HOME:-$HOME/.cache}/wavetrace/mitsuba-site}
if ! PYTHONPATH=$site python3 -c "import mitsuba, numpy" 2> /dev/null; then
  echo "installing Mitsuba 3.9.1 and numpy into $site" >&2
  python3 -m pip install -q --target "$site" mitsuba==3.9.1 drjit==1.5.0 numpy
fi
wavetrace=${WAVETRACE:-target/release/wavetrace}
[ -x "$wavetrace" ] || cargo build --release --locked --bin wavetrace
work=${KEEP:-$(mktemp -d)}
mkdir -p "$work"
seeds=("$@")
[ ${#seeds[@]} -gt 0 ] || seeds=(1 2 3 4 5 6 7 8)
wide=()
converter=tools/bench/peer/gltf2mitsuba.py
if [ -n "${WIDE:-}" ]; then
  wide=(--wide)
  converter=tools/scenes/gltf2mitsuba_wide.py
fi
status=0
printf '%-6s %-9s %-5s %-11s %-10s %-10s %-9s %-11s %s\n' seed size depth integrator "ref mean" "ref noise" relMSE "block8" "mean ratios"
for seed in "${seeds[@]}"; do
  scene="$work/random-$seed.gltf"
  read -r width height depth < <(python3 tools/scenes/random_scene.py "$seed" "$scene" "${wide[@]}")
  # A constant environment travels in the file's asset.extras; wavetrace takes it on its command line.
  read -r -a environment < <(python3 -c "
import json, os, sys
sky = json.load(open(sys.argv[1])).get('asset', {}).get('extras', {}).get('environment')
if isinstance(sky, dict):
    print('--env %s --env-rotation %r --env-strength %r'
          % (os.path.join(os.path.dirname(sys.argv[1]), sky['map']), sky['rotation'], sky['strength']))
elif sky:
    print('--env-color %r %r %r' % tuple(sky))
else:
    print()" "$scene")
  if [ -n "${WIDE:-}" ]; then
    # What of the wide features the rendered scene holds, to count what the seeds covered.
    python3 -c "
import json, sys
g = json.load(open(sys.argv[1]))
nodes, used = g['nodes'], []
def walk(i):
    used.append(nodes[i])
    for c in nodes[i].get('children', []):
        walk(c)
for r in g['scenes'][g.get('scene', 0)]['nodes']:
    walk(r)
meshes = [g['meshes'][n['mesh']] for n in used if 'mesh' in n]
prims = [p for m in meshes for p in m['primitives']]
mats = [g['materials'][p['material']] for p in prims]
lights = g.get('extensions', {}).get('KHR_lights_punctual', {}).get('lights', [])
kinds = [lights[n['extensions']['KHR_lights_punctual']['light']]['type'] for n in used if 'extensions' in n]
features = {'base-colour textures': sum('baseColorTexture' in m['pbrMetallicRoughness'] for m in mats),
            'emissive textures': sum('emissiveTexture' in m for m in mats),
            'spheres with normals': sum('NORMAL' in m['primitives'][0]['attributes'] for m in meshes
                                  if m['name'].startswith('icosphere')),
            'point': kinds.count('point'), 'spot': kinds.count('spot'), 'directional': kinds.count('directional'),
            'constant environment': int(isinstance(g['asset'].get('extras', {}).get('environment'), list)),
            'environment map': int(isinstance(g['asset'].get('extras', {}).get('environment'), dict))}
print('seed %s: ' % sys.argv[2] + ', '.join('%s %d' % kv for kv in features.items() if kv[1]))" "$scene" "$seed"
  fi
  # Four Mitsuba renders of a quarter of the samples each, with other seeds: their average is
  # the reference, and the spread of their means gives the standard error of its mean.
  parts=()
  for part in 1 2 3 4; do
    PYTHONPATH=$site python3 "$converter" "$scene" "$work/random-$seed-mitsuba-$part.exr" \
      --variant "${MITSUBA_VARIANT:-scalar_rgb}" --twosided --spp $(( ${MITSUBA_SPP:-4096} / 4 )) \
      --seed-base $(( part * 7919 )) --res "$width" "$height" --max-depth "$depth" > /dev/null
    parts+=("$work/random-$seed-mitsuba-$part.exr")
  done
  read -r reference_mean reference_noise < <(PYTHONPATH=$site python3 -c "
import sys, numpy as np, mitsuba as mi
mi.set_variant(sys.argv[1])
images = [np.array(mi.Bitmap(f), np.float64) for f in sys.argv[3:]]
mi.Bitmap(np.mean(images, axis=0).astype(np.float32)).write(sys.argv[2])
means = np.array([image.mean(axis=(0, 1)) for image in images])
error = means.std(axis=0, ddof=1) / np.sqrt(len(images)) / np.maximum(means.mean(axis=0), 1e-30)
print('%.4g %.4f' % (means.mean(), error.max()))" "${MITSUBA_VARIANT:-scalar_rgb}" "$work/random-$seed-mitsuba.exr" "${parts[@]}")
  for integrator in ${INTEGRATORS:-wavefront megakernel bdpt}; do
    # An entry may carry options after commas: pmlt,--mlt-normalise,off.
    IFS=, read -r -a options <<< "$integrator"
    out="$work/random-$seed-${integrator//[^a-z0-9]/_}.exr"
    "$wavetrace" render "$scene" -o "$out" --res "$width" "$height" --spp "${WAVETRACE_SPP:-4096}" \
      --max-depth "$depth" --integrator "${options[0]}" "${options[@]:1}" --seed "$seed" "${environment[@]}" > /dev/null 2>&1
    line=$("$wavetrace" compare "$out" "$work/random-$seed-mitsuba.exr")
    read -r rel block r g b < <(sed -E 's/relMSE ([^,]*), block-8 relMSE ([^,]*), mean ratio ([^ ]*) ([^ ]*) ([^,]*),.*/\1 \2 \3 \4 \5/' <<< "$line")
    verdict=$(python3 -c "
import sys
mean, noise = float(sys.argv[1]), float(sys.argv[2])
ratios = [float(x) for x in sys.argv[3:]]
if mean < 1e-6:
    print('' if all(r != r or r * mean < 1e-6 for r in ratios) else 'MISMATCH (black in Mitsuba)')
elif any(abs(r - 1) > max(0.02, 3 * noise) for r in ratios):
    print('MISMATCH')" "$reference_mean" "$reference_noise" "$r" "$g" "$b")
    [ -z "$verdict" ] || status=1
    printf '%-6s %-9s %-5s %-11s %-10s %-10s %-9s %-11s %s %s %s %s\n' "$seed" "${width}x$height" "$depth" "$integrator" \
      "$reference_mean" "$reference_noise" "$rel" "$block" "$r" "$g" "$b" "$verdict"
  done
done
echo "scenes and images: $work" >&2
exit $status
