#!/usr/bin/env bash
# wavetrace against Mitsuba 3 on random scenes of REFERENCE.md's subset (tools/scenes/random_scene.py):
# each seed's scene rendered by Mitsuba (scalar_rgb on the CPU, back faces two-sided as the
# conventions say) and by each wavetrace integrator at the same resolution and depth, then
# compared with `wavetrace compare`. The reference is four Mitsuba renders of a quarter of the
# samples with other seeds, averaged; "ref noise" is the standard error of its mean (relative,
# the worst channel, from the four means: rough where rare paths carry the light). A mean ratio
# further from 1 than 2% (the conventions' tolerance) and three times that noise is marked
# MISMATCH, and the script fails; a scene that Mitsuba renders black must be black here too. So is
# a block-8 relMSE over 20 times what the reference's noise predicts for the render ("/noise",
# from the spread of the four parts' 8 x 8 blocks; not for pmlt, whose noise is correlated):
# light in the wrong places that leaves every mean alone, such as a texture turned the wrong way.
# Where a punctual light shines on a mirror or smooth glass, bdpt and pmlt may be brighter than
# Mitsuba's path tracer and not fail: they have the caustics that no path tracer reaches (noted).
# Where a mirror or glass has smooth normals, the blocks may differ and not fail (noted): wavetrace
# drops what the interpolated normal would send through the face, which Mitsuba follows.
# A mismatch can be Mitsuba's: where an emitter pierces an occluder, its shadow rays, which stop
# 1e-3 of their length short, let millimetres of the emitter behind it through (docs/BENCHMARKS.md,
# seed 56). Check a mismatch against the strategies of --integrator bdpt and a CPU integral.
# Mitsuba 3.9.1 and numpy are installed with pip into $MITSUBA_SITE the first time.
#
# WIDE=1 checks the scenes of random_scene.py --wide instead (textures, smooth normals, punctual
# lights, a constant environment or an environment map), converted by
# tools/scenes/gltf2mitsuba_wide.py. WIDER=1 checks random_scene.py --wider's: those and alpha
# (MASK and BLEND), texture transforms and absorbing glass (KHR_materials_volume), which
# Mitsuba renders with volpath. NEAR=1 (with either or neither) adds random_scene.py --near's
# cut: something before the camera's near plane, seen by neither renderer's camera rays but
# lighting and shadowing the rest. ORTHO=1 (with any of them) makes the camera orthographic
# (random_scene.py --orthographic; tools/scenes/gltf2mitsuba_orthographic.py hands Mitsuba its
# `orthographic` sensor).
#
# usage: tools/mitsuba-check.sh [SEED...]   (default: 1 to 8)
#   WIDE or WIDER (unset), NEAR (unset), ORTHO (unset), MITSUBA_SPP (4096), WAVETRACE_SPP (4096), INTEGRATORS ("wavefront megakernel bdpt";
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
if [ -n "${WIDER:-}" ]; then
  wide=(--wider)
  converter=tools/scenes/gltf2mitsuba_wide.py
elif [ -n "${WIDE:-}" ]; then
  wide=(--wide)
  converter=tools/scenes/gltf2mitsuba_wide.py
fi
[ -z "${NEAR:-}" ] || wide+=(--near)
convert=(python3 "$converter")
if [ -n "${ORTHO:-}" ]; then
  wide+=(--orthographic)
  convert=(python3 tools/scenes/gltf2mitsuba_orthographic.py "$converter")
fi
status=0
printf '%-6s %-9s %-5s %-11s %-10s %-10s %-9s %-11s %-8s %s\n' seed size depth integrator "ref mean" "ref noise" relMSE "block8" "/noise" "mean ratios"
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
  # What the rendered scene holds: first whether a punctual light (a point in position or
  # direction) shines on a mirror or smooth glass, whose caustics a path tracer can reach from
  # neither end, so that Mitsuba's path tracer and wavetrace's lack them and light tracing (bdpt,
  # pmlt) has them; then whether a mirror or glass has smooth normals, about which wavetrace
  # drops a reflection that would turn below the face (or a refraction above it) where Mitsuba
  # follows it; then its wide features, to count what the seeds covered.
  read -r caustics_of_points smooth_specular features < <(python3 -c "
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
def is_specular(m):
    pbr = m.get('pbrMetallicRoughness', {})
    return 'KHR_materials_transmission' in m.get('extensions', {}) or (
        pbr.get('metallicFactor', 1) == 1 and pbr.get('roughnessFactor', 1) == 0)
specular = any(is_specular(m) for m in mats)
smooth_specular = any('NORMAL' in p['attributes'] and is_specular(g['materials'][p['material']]) for p in prims)
features = {'base-colour textures': sum('baseColorTexture' in m.get('pbrMetallicRoughness', {}) for m in mats),
            'emissive textures': sum('emissiveTexture' in m for m in mats),
            'spheres with normals': sum('NORMAL' in m['primitives'][0]['attributes'] for m in meshes
                                  if m['name'].startswith('icosphere')),
            'alpha masks': sum(m.get('alphaMode') == 'MASK' for m in mats),
            'alpha blends': sum(m.get('alphaMode') == 'BLEND' for m in mats),
            'texture transforms': sum('extensions' in m.get('pbrMetallicRoughness', {}).get('baseColorTexture', {})
                                      for m in mats),
            'absorbing glass': sum('KHR_materials_volume' in m.get('extensions', {}) for m in mats),
            'point': kinds.count('point'), 'spot': kinds.count('spot'), 'directional': kinds.count('directional'),
            'constant environment': int(isinstance(g['asset'].get('extras', {}).get('environment'), list)),
            'environment map': int(isinstance(g['asset'].get('extras', {}).get('environment'), dict))}
print(int(specular and bool(kinds)), int(smooth_specular), 'seed %s: ' % sys.argv[2] + ', '.join('%s %d' % kv for kv in features.items() if kv[1]))" \
    "$scene" "$seed")
  [ ${#wide[@]} -eq 0 ] || echo "$features"
  # Four Mitsuba renders of a quarter of the samples each, with other seeds: their average is
  # the reference, and the spread of their means gives the standard error of its mean.
  parts=()
  for part in 1 2 3 4; do
    PYTHONPATH=$site "${convert[@]}" "$scene" "$work/random-$seed-mitsuba-$part.exr" \
      --variant "${MITSUBA_VARIANT:-scalar_rgb}" --twosided --spp $(( ${MITSUBA_SPP:-4096} / 4 )) \
      --seed-base $(( part * 7919 )) --res "$width" "$height" --max-depth "$depth" > /dev/null
    parts+=("$work/random-$seed-mitsuba-$part.exr")
  done
  # The block-8 relMSE that noise alone would give a wavetrace render of WAVETRACE_SPP samples,
  # from the spread of the four parts' 8 x 8 block means (as if wavetrace's samples were as noisy
  # as Mitsuba's): a render far above it has light in the wrong places (a texture turned the
  # wrong way moves none of the means but raises this 100-fold).
  read -r reference_mean reference_noise block_noise < <(PYTHONPATH=$site python3 -c "
import sys, numpy as np, mitsuba as mi
mi.set_variant(sys.argv[1])
images = [np.array(mi.Bitmap(f), np.float64)[:, :, :3] for f in sys.argv[4:]]
mi.Bitmap(np.mean(images, axis=0).astype(np.float32)).write(sys.argv[2])
means = np.array([image.mean(axis=(0, 1)) for image in images])
error = means.std(axis=0, ddof=1) / np.sqrt(len(images)) / np.maximum(means.mean(axis=0), 1e-30)
h, w = (images[0].shape[0] // 8) * 8, (images[0].shape[1] // 8) * 8
blocks = np.array([i[:h, :w].reshape(h // 8, 8, w // 8, 8, 3).mean(axis=(1, 3)) for i in images])
part_variance = blocks.var(axis=0, ddof=1)
variance = part_variance / len(images) + part_variance * float(sys.argv[3])
print('%.4g %.4f %.3g' % (means.mean(), error.max(), np.mean(variance / (blocks.mean(axis=0) ** 2 + 0.001))))" \
    "${MITSUBA_VARIANT:-scalar_rgb}" "$work/random-$seed-mitsuba.exr" \
    "$(python3 -c "print(${MITSUBA_SPP:-4096} / 4 / ${WAVETRACE_SPP:-4096})")" "${parts[@]}")
  for integrator in ${INTEGRATORS:-wavefront megakernel bdpt}; do
    # An entry may carry options after commas: pmlt,--mlt-normalise,off.
    IFS=, read -r -a options <<< "$integrator"
    out="$work/random-$seed-${integrator//[^a-z0-9]/_}.exr"
    "$wavetrace" render "$scene" -o "$out" --res "$width" "$height" --spp "${WAVETRACE_SPP:-4096}" \
      --max-depth "$depth" --integrator "${options[0]}" "${options[@]:1}" --seed "$seed" "${environment[@]}" > /dev/null 2>&1
    line=$("$wavetrace" compare "$out" "$work/random-$seed-mitsuba.exr")
    read -r rel block r g b < <(sed -E 's/relMSE ([^,]*), block-8 relMSE ([^,]*), mean ratio ([^ ]*) ([^ ]*) ([^,]*),.*/\1 \2 \3 \4 \5/' <<< "$line")
    structure=$(python3 -c "print('%.3g' % ($block / max($block_noise, 1e-12)))")
    verdict=$(python3 -c "
import sys
mean, noise, structure = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
metropolis, light_traced = sys.argv[4] == 'pmlt', sys.argv[4] in ('bdpt', 'pmlt') and sys.argv[5] == '1'
smooth_specular = sys.argv[6] == '1'
ratios = [float(x) for x in sys.argv[7:]]
if mean < 1e-6:
    print('' if all(r != r or r * mean < 1e-6 for r in ratios) else 'MISMATCH (black in Mitsuba)')
elif any(r - 1 < -max(0.02, 3 * noise) for r in ratios) or (
        not light_traced and any(r - 1 > max(0.02, 3 * noise) for r in ratios)):
    print('MISMATCH')
elif light_traced and (any(r - 1 > max(0.02, 3 * noise) for r in ratios) or (structure > 20 and not metropolis)):
    print('(brighter: caustics of a punctual light, which only light tracing reaches)')
elif structure > 20 and not metropolis and smooth_specular:
    print('(blocks differ: smooth normals on a mirror or glass, bent no further than the face here)')
elif structure > 20 and not metropolis:
    # Metropolis noise is correlated along chains: far above independent samples' by nature.
    print('MISMATCH (block8 %gx the noise)' % structure)" "$reference_mean" "$reference_noise" "$structure" \
      "${options[0]}" "$caustics_of_points" "$smooth_specular" "$r" "$g" "$b")
    [[ "$verdict" != MISMATCH* ]] || status=1
    printf '%-6s %-9s %-5s %-11s %-10s %-10s %-9s %-11s %-8s %s %s %s %s\n' "$seed" "${width}x$height" "$depth" "$integrator" \
      "$reference_mean" "$reference_noise" "$rel" "$block" "$structure" \
      "$r" "$g" "$b" "$verdict"
  done
done
echo "scenes and images: $work" >&2
exit $status
