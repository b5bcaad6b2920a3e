#!/usr/bin/env python3
"""Writes the many-material benchmark scene (docs/BENCHMARKS.md): the Cornell box's room
(white floor, ceiling and back, red and green side walls, the ceiling light) holding a 6 x 4
grid of UV spheres, each with a material of its own: 16 Lambertian colours, 4 tinted mirrors
and 4 glasses of different indices. 28 materials; with the default 256 x 84 segments per
sphere, 24 x 42,496 = 1,019,904 sphere triangles (1,019,916 in all).

usage: many_materials.py OUT_DIR [--slices N] [--stacks N]
"""
import argparse
import colorsys
import json
import math
import os
import struct


def room():
    """Quads (4 corners, material index) of the box: open front, light under the ceiling."""
    white, red, green, light = 0, 1, 2, 3
    return [
        ([(-1, -1, -1), (1, -1, -1), (1, -1, 1), (-1, -1, 1)][::-1], white),  # floor, faces up
        ([(-1, 1, -1), (1, 1, -1), (1, 1, 1), (-1, 1, 1)], white),  # ceiling, faces down
        ([(-1, -1, -1), (1, -1, -1), (1, 1, -1), (-1, 1, -1)], white),  # back, faces +z
        ([(-1, -1, -1), (-1, 1, -1), (-1, 1, 1), (-1, -1, 1)][::-1], red),  # left, faces +x
        ([(1, -1, -1), (1, 1, -1), (1, 1, 1), (1, -1, 1)], green),  # right, faces -x
        ([(-0.24, 0.99, -0.22), (0.23, 0.99, -0.22), (0.23, 0.99, 0.16), (-0.24, 0.99, 0.16)], light),
    ]


def sphere(center, radius, slices, stacks):
    positions = []
    for i in range(stacks + 1):
        theta = math.pi * i / stacks
        for j in range(slices):
            phi = 2 * math.pi * j / slices
            positions.append((
                center[0] + radius * math.sin(theta) * math.cos(phi),
                center[1] + radius * math.cos(theta),
                center[2] + radius * math.sin(theta) * math.sin(phi),
            ))
    indices = []
    for i in range(stacks):
        for j in range(slices):
            a = i * slices + j
            b = i * slices + (j + 1) % slices
            c = a + slices
            d = b + slices
            # Counter-clockwise seen from outside; no degenerate triangles at the poles.
            if i != 0:
                indices += (a, b, c)
            if i != stacks - 1:
                indices += (b, d, c)
    return positions, indices


def materials():
    lambertian = "KHR_materials_specular"
    out = [
        {"name": "white", "pbrMetallicRoughness": {"baseColorFactor": [0.8859, 0.6989, 0.6664, 1], "metallicFactor": 0, "roughnessFactor": 1}, "extensions": {lambertian: {"specularFactor": 0}}},
        {"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [0.5701, 0.0430, 0.0444, 1], "metallicFactor": 0, "roughnessFactor": 1}, "extensions": {lambertian: {"specularFactor": 0}}},
        {"name": "green", "pbrMetallicRoughness": {"baseColorFactor": [0.1054, 0.3780, 0.0764, 1], "metallicFactor": 0, "roughnessFactor": 1}, "extensions": {lambertian: {"specularFactor": 0}}},
        {"name": "light", "pbrMetallicRoughness": {"baseColorFactor": [0.8859, 0.6989, 0.6664, 1], "metallicFactor": 0, "roughnessFactor": 1},
         "emissiveFactor": [1.0, 0.7607, 0.3673], "extensions": {lambertian: {"specularFactor": 0}, "KHR_materials_emissive_strength": {"emissiveStrength": 18.387}}},
    ]
    for k in range(16):
        r, g, b = colorsys.hsv_to_rgb(k / 16, 0.75, 0.85)
        out.append({"name": f"diffuse-{k}", "pbrMetallicRoughness": {"baseColorFactor": [r, g, b, 1], "metallicFactor": 0, "roughnessFactor": 1},
                    "extensions": {lambertian: {"specularFactor": 0}}})
    for k in range(4):
        r, g, b = colorsys.hsv_to_rgb(k / 4, 0.3, 0.95)
        out.append({"name": f"mirror-{k}", "pbrMetallicRoughness": {"baseColorFactor": [r, g, b, 1], "metallicFactor": 1, "roughnessFactor": 0}})
    for k in range(4):
        out.append({"name": f"glass-{k}", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0},
                    "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1}, "KHR_materials_ior": {"ior": 1.3 + 0.1 * k}}})
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--slices", type=int, default=256)
    parser.add_argument("--stacks", type=int, default=84)
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)

    meshes = []  # (name, positions, indices, material)
    for n, (corners, material) in enumerate(room()):
        meshes.append((f"room-{n}", corners, [0, 1, 2, 0, 2, 3], material))
    columns, rows, radius = 6, 4, 0.12
    for row in range(rows):
        for column in range(columns):
            k = row * columns + column
            # Diffuse spheres first, then mirrors and glasses spread over the grid.
            material = 4 + (k * 7) % 24
            center = (-0.75 + 0.3 * column, -0.6 + 0.4 * row, -0.1 + 0.25 * ((row + column) % 2))
            positions, indices = sphere(center, radius, args.slices, args.stacks)
            meshes.append((f"sphere-{k}", positions, indices, material))

    blob = bytearray()
    accessors, views, gltf_meshes, nodes = [], [], [], []
    for name, positions, indices, material in meshes:
        start = len(blob)
        for p in positions:
            blob += struct.pack("<3f", *p)
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34962})
        lo = [min(p[i] for p in positions) for i in range(3)]
        hi = [max(p[i] for p in positions) for i in range(3)]
        accessors.append({"bufferView": len(views) - 1, "componentType": 5126, "count": len(positions), "type": "VEC3", "min": lo, "max": hi})
        start = len(blob)
        blob += struct.pack(f"<{len(indices)}I", *indices)
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34963})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5125, "count": len(indices), "type": "SCALAR"})
        gltf_meshes.append({"name": name, "primitives": [{"attributes": {"POSITION": len(accessors) - 2}, "indices": len(accessors) - 1, "material": material}]})
        nodes.append({"name": name, "mesh": len(gltf_meshes) - 1})
    nodes.append({"name": "camera", "camera": 0, "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 3.9, 1]})
    document = {
        "asset": {"version": "2.0", "generator": "wavetrace tools/scenes/many_materials.py"},
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": gltf_meshes,
        "materials": materials(),
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.6860487863861751, "aspectRatio": 1.0, "znear": 0.001, "zfar": 100.0}}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob), "uri": "many-materials.bin"}],
        "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_materials_ior", "KHR_materials_specular", "KHR_materials_transmission"],
    }
    with open(os.path.join(args.out_dir, "many-materials.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(args.out_dir, "many-materials.gltf"), "w") as f:
        json.dump(document, f, indent=1)
    triangles = sum(len(m[2]) // 3 for m in meshes)
    print(f"{len(meshes)} meshes, {len(materials())} materials, {triangles} triangles")


if __name__ == "__main__":
    main()
