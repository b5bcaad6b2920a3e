#!/usr/bin/env python3
"""Removes KHR_materials_clearcoat from a glTF file in place, so that a coated scene can be
rendered without its coats by the same binary (docs/BENCHMARKS.md, "KHR_materials_clearcoat").

usage: strip_clearcoat.py FILE.gltf
"""
import json
import sys

document = json.load(open(sys.argv[1]))
for material in document.get("materials", []):
    material.get("extensions", {}).pop("KHR_materials_clearcoat", None)
document["extensionsUsed"] = [e for e in document.get("extensionsUsed", []) if e != "KHR_materials_clearcoat"]
json.dump(document, open(sys.argv[1], "w"))
