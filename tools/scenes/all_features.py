#!/usr/bin/env python3
"""Writes tests/scenes/all-features: one small glTF that uses every material and light
feature wavetrace renders at once (tests/all_features.rs renders it under an environment
map with validation on). A floor with a checker base colour through KHR_texture_transform
and a normal texture (tangents generated); spheres of textured plastic (metallic-roughness
texture, KHR_materials_specular colour and factor, KHR_materials_ior, a smooth clearcoat), rough metal, rough
coloured glass (KHR_materials_transmission + KHR_materials_volume), an emissive texture with
KHR_materials_emissive_strength, and a normal-mapped sphere that brings its own TANGENT under a
rough clearcoat (whose normal the map does not tilt); an
alpha-masked leaf with a clamped, nearest-filtered sampler and a blended veil; vertex colours
(COLOR_0: float RGB across the floor, normalized 8-bit RGBA with an alpha ramp on the veil);
a point, a spot and a directional light (KHR_lights_punctual).

usage: all_features.py OUT_DIR
"""
import json
import math
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from many_materials import sphere, write_png  # noqa: E402

SIZE = 64


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    images = {
        "checker": lambda x, y: (220, 210, 200, 255) if ((x // 8) + (y // 8)) % 2 == 0 else (40, 60, 90, 255),
        "bumps": lambda x, y: (int(127.5 + 90 * math.cos(x * math.pi / 8)), int(127.5 + 90 * math.sin(y * math.pi / 8)), 210, 255),
        "metal-roughness": lambda x, y: (0, 40 + (x * 3) % 200, 255 if (y // 16) % 2 else 0, 255),
        "glow": lambda x, y: (255, 160, 40, 255) if (x // 16 + y // 16) % 2 else (20, 80, 255, 255),
        "leaf": lambda x, y: (60, 160, 40, 255 if (x - 32) ** 2 / 900 + (y - 32) ** 2 / 400 < 1 else 0),
    }
    names = list(images)
    for name, pixel in images.items():
        write_png(os.path.join(out, f"{name}.png"), SIZE, pixel)
    tex = lambda name, **extra: dict({"index": names.index(name)}, **extra)
    materials = [
        {"name": "floor", "pbrMetallicRoughness": {"baseColorTexture": tex("checker", extensions={"KHR_texture_transform": {"scale": [3, 3], "rotation": 0.3}}),
                                                    "metallicFactor": 0, "roughnessFactor": 0.7},
         "normalTexture": tex("bumps", scale=0.5, extensions={"KHR_texture_transform": {"scale": [8, 8]}})},
        {"name": "plastic", "pbrMetallicRoughness": {"baseColorFactor": [0.8, 0.3, 0.2, 1], "metallicRoughnessTexture": tex("metal-roughness"), "metallicFactor": 0.5},
         "extensions": {"KHR_materials_specular": {"specularFactor": 0.8, "specularColorFactor": [1, 0.9, 0.8]}, "KHR_materials_ior": {"ior": 1.6},
                        "KHR_materials_clearcoat": {"clearcoatFactor": 0.5}}},
        {"name": "rough metal", "pbrMetallicRoughness": {"baseColorFactor": [0.95, 0.8, 0.5, 1], "metallicFactor": 1, "roughnessFactor": 0.35}},
        {"name": "coloured glass", "pbrMetallicRoughness": {"metallicFactor": 0, "roughnessFactor": 0.15},
         "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1}, "KHR_materials_ior": {"ior": 1.45},
                        "KHR_materials_volume": {"thicknessFactor": 1, "attenuationColor": [0.9, 0.4, 0.2],
                                                 "attenuationDistance": 0.5}}},
        {"name": "glow", "emissiveFactor": [1, 1, 1], "emissiveTexture": tex("glow"),
         "pbrMetallicRoughness": {"baseColorFactor": [0.1, 0.1, 0.1, 1], "metallicFactor": 0},
         "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": 3}}},
        {"name": "bumpy", "normalTexture": tex("bumps"), "pbrMetallicRoughness": {"baseColorFactor": [0.3, 0.7, 0.4, 1], "metallicFactor": 0, "roughnessFactor": 0.4},
         "extensions": {"KHR_materials_clearcoat": {"clearcoatFactor": 0.8, "clearcoatRoughnessFactor": 0.15}}},
        {"name": "leaf", "alphaMode": "MASK", "alphaCutoff": 0.5, "doubleSided": True,
         "pbrMetallicRoughness": {"baseColorTexture": tex("leaf"), "metallicFactor": 0, "roughnessFactor": 0.8}},
        {"name": "veil", "alphaMode": "BLEND", "pbrMetallicRoughness": {"baseColorFactor": [0.9, 0.9, 1.0, 0.3], "metallicFactor": 0}},
    ]
    blob = bytearray()
    accessors, views, meshes, nodes = [], [], [], []

    def attribute(values, kind, per, target=34962):
        start = len(blob)
        for v in values:
            blob.extend(struct.pack(f"<{per}f", *v))
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": target})
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(values), "type": kind}
        if kind == "VEC3":
            accessor["min"] = [min(p[i] for p in values) for i in range(3)]
            accessor["max"] = [max(p[i] for p in values) for i in range(3)]
        accessors.append(accessor)
        return len(accessors) - 1

    def bytes_attribute(values, kind):
        """Unsigned 8-bit components in [0, 1], normalized, each element padded to 4 bytes."""
        start = len(blob)
        for v in values:
            blob.extend(bytes(round(255 * x) for x in v))
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34962})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5121, "normalized": True, "count": len(values), "type": kind})
        return len(accessors) - 1

    def mesh(name, positions, indices, normals, uvs, material, tangents=None, colors=None):
        attributes = {"POSITION": attribute(positions, "VEC3", 3), "NORMAL": attribute(normals, "VEC3", 3), "TEXCOORD_0": attribute(uvs, "VEC2", 2)}
        if tangents:
            attributes["TANGENT"] = attribute(tangents, "VEC4", 4)
        if colors and len(colors[0]) == 3:
            attributes["COLOR_0"] = attribute(colors, "VEC3", 3)
        elif colors:
            attributes["COLOR_0"] = bytes_attribute(colors, "VEC4")
        start = len(blob)
        blob.extend(struct.pack(f"<{len(indices)}I", *indices))
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34963})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5125, "count": len(indices), "type": "SCALAR"})
        meshes.append({"name": name, "primitives": [{"attributes": attributes, "indices": len(accessors) - 1, "material": material}]})
        nodes.append({"name": name, "mesh": len(meshes) - 1})

    def quad(name, corners, material, colors=None):
        a, b, c, d = corners
        u = [b[i] - a[i] for i in range(3)]
        v = [d[i] - a[i] for i in range(3)]
        n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
        length = math.sqrt(sum(x * x for x in n))
        n = [x / length for x in n]
        mesh(name, corners, [0, 1, 2, 0, 2, 3], [n] * 4, [(0, 1), (1, 1), (1, 0), (0, 0)], material, colors=colors)

    quad("floor", [(-2, 0, 2), (2, 0, 2), (2, 0, -2), (-2, 0, -2)], 0, colors=[(1, 1, 1), (1, 0.7, 0.5), (0.5, 0.8, 1), (0.9, 1, 0.6)])
    quad("leaf", [(0.6, 0.1, 0.6), (1.2, 0.1, 0.6), (1.2, 0.7, 0.6), (0.6, 0.7, 0.6)], 6)
    quad("veil", [(-1.4, 0.05, 0.9), (-0.4, 0.05, 0.9), (-0.4, 0.9, 0.9), (-1.4, 0.9, 0.9)], 7,
         colors=[(1, 1, 1, 1), (1, 0.8, 0.8, 1), (0.8, 0.8, 1, 0.4), (1, 1, 1, 0.4)])
    for k, (x, z, material) in enumerate([(-1.0, -0.5, 1), (0.0, -0.6, 2), (1.0, -0.5, 3), (-0.5, 0.3, 4), (0.5, 0.2, 5)]):
        positions, indices, normals, uvs = sphere((x, 0.35, z), 0.35, 48, 24, seam=True)
        tangents = None
        if material == 5:
            # The file's own tangents: along increasing u, around the Y axis.
            tangents = [(-n[2] / max(math.hypot(n[0], n[2]), 1e-6), 0.0, n[0] / max(math.hypot(n[0], n[2]), 1e-6), 1.0) for n in normals]
        mesh(f"sphere-{k}", positions, indices, normals, uvs, material, tangents)
    nodes.append({"name": "bulb", "translation": [0.3, 1.6, 0.8], "extensions": {"KHR_lights_punctual": {"light": 0}}})
    half = math.radians(-60) / 2
    nodes.append({"name": "spot", "translation": [-1.5, 2.0, 1.0], "rotation": [math.sin(half), 0, 0, math.cos(half)],
                  "extensions": {"KHR_lights_punctual": {"light": 1}}})
    sun = [math.sin(math.radians(-25)), 0.2, 0, math.cos(math.radians(-25))]
    sun = [x / math.sqrt(sum(y * y for y in sun)) for x in sun]
    nodes.append({"name": "sun", "rotation": sun,
                  "extensions": {"KHR_lights_punctual": {"light": 2}}})
    nodes.append({"name": "camera", "camera": 0, "translation": [0, 1.2, 3.4], "rotation": [math.sin(math.radians(-9)), 0, 0, math.cos(math.radians(-9))]})
    document = {
        "asset": {"version": "2.0", "generator": "wavetrace tools/scenes/all_features.py"},
        "extensionsUsed": ["KHR_texture_transform", "KHR_materials_specular", "KHR_materials_ior", "KHR_materials_transmission",
                           "KHR_materials_volume", "KHR_materials_emissive_strength", "KHR_lights_punctual", "KHR_materials_clearcoat"],
        "extensions": {"KHR_lights_punctual": {"lights": [
            {"name": "bulb", "type": "point", "color": [1, 0.9, 0.7], "intensity": 3, "range": 6},
            {"name": "spot", "type": "spot", "intensity": 12, "spot": {"innerConeAngle": 0.3, "outerConeAngle": 0.6}},
            {"name": "sun", "type": "directional", "color": [1, 0.95, 0.9], "intensity": 1.5}]}},
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "images": [{"uri": f"{name}.png"} for name in names],
        "samplers": [{"magFilter": 9728, "minFilter": 9728, "wrapS": 33071, "wrapT": 33648}],
        "textures": [{"source": i, **({"sampler": 0} if names[i] == "leaf" else {})} for i in range(len(names))],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.8, "aspectRatio": 1.0, "znear": 0.01}}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob), "uri": "all-features.bin"}],
    }
    with open(os.path.join(out, "all-features.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(out, "all-features.gltf"), "w") as f:
        json.dump(document, f, indent=1)


if __name__ == "__main__":
    main()
