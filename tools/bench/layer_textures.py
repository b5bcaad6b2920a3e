#!/usr/bin/env python3
"""all-features with textures on its layers' factors, for what FEATURE_LAYER_TEXTURES costs
(docs/BENCHMARKS.md, "Textures on the layers' factors"): the plastic's specular (the
metal-roughness image's alpha) and specular colour (the checker), the glass's transmission (the
checker's red: opaque squares), the bumpy coat's weight (checker), roughness (metal-roughness's
green) and normal (bumps). The factors stay, so the file without these textures is all-features
itself.
usage: layer_textures.py tests/scenes/all-features/all-features.gltf OUT_FOLDER
"""
import json
import os
import shutil
import sys

source, folder = sys.argv[1], sys.argv[2]
os.makedirs(folder, exist_ok=True)
with open(source) as f:
    g = json.load(f)
base = os.path.dirname(os.path.abspath(source))
for name in os.listdir(base):
    if name.endswith((".png", ".bin")):
        shutil.copy(os.path.join(base, name), folder)
CHECKER, BUMPS, METAL_ROUGHNESS = 0, 1, 2
materials = {m["name"]: m for m in g["materials"]}
extensions = lambda m: m.setdefault("extensions", {})
specular = extensions(materials["plastic"]).setdefault("KHR_materials_specular", {})
specular["specularTexture"] = {"index": METAL_ROUGHNESS}
specular["specularColorTexture"] = {"index": CHECKER}
extensions(materials["coloured glass"])["KHR_materials_transmission"]["transmissionTexture"] = {"index": CHECKER}
coat = extensions(materials["bumpy"])["KHR_materials_clearcoat"]
coat["clearcoatTexture"] = {"index": CHECKER}
coat["clearcoatRoughnessTexture"] = {"index": METAL_ROUGHNESS}
coat["clearcoatNormalTexture"] = {"index": BUMPS, "scale": 0.7}
with open(os.path.join(folder, "all-features-layered.gltf"), "w") as f:
    json.dump(g, f)
shutil.copy(source, os.path.join(folder, "all-features.gltf"))
