#!/usr/bin/env python3
"""Writes the many-material benchmark scene (docs/BENCHMARKS.md): the Cornell box's room
(white floor, ceiling and back, red and green side walls, the ceiling light) holding a 6 x 4
grid of UV spheres, each with a material of its own: 16 Lambertian colours, 4 tinted mirrors
and 4 glasses of different indices. 28 materials; with the default 256 x 84 segments per
sphere, 24 x 42,496 = 1,019,904 sphere triangles (1,019,916 in all).

With --textured the same room holds the glTF materials of the materials issue instead: the
16 diffuse spheres become textured plastics (base colour, metallic-roughness and, for every
other one, normal textures; the full specular layer), the mirrors rough metals with a
roughness texture, the glasses rough coloured glass (KHR_materials_volume), and the floor a
normal-mapped checkerboard; the spheres get normals and UVs (one more column at the seam).
Textures are 256 x 256 PNGs written beside the scene (many-materials-textured.gltf).

With --diffuse every sphere takes one of the 16 Lambertian colours (no mirrors, no glass): the
same geometry with the simplest shading, for telling what the triangles cost from what the
materials cost. --name sets the file stem (default many-materials, or many-materials-textured).

usage: many_materials.py OUT_DIR [--slices N] [--stacks N] [--textured | --diffuse] [--name STEM]
"""
import argparse
import colorsys
import json
import math
import os
import struct
import zlib

TEXTURE_SIZE = 256


def write_png(path, size, pixel):
    """An RGBA8 PNG of size x size, pixel(x, y) -> (r, g, b, a) in 0..255."""
    rows = bytearray()
    for y in range(size):
        rows.append(0)
        for x in range(size):
            rows += bytes(pixel(x, y))
    chunk = lambda kind, data: struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(rows), 6)) + chunk(b"IEND", b""))


def textures(out_dir):
    """The textured variant's images: name -> file. Patterns differ per material so that
    shading reads different texels (and textures) across the grid."""
    files = {}
    n = TEXTURE_SIZE

    def make(name, pixel):
        files[name] = f"{name}.png"
        write_png(os.path.join(out_dir, files[name]), n, pixel)

    for k in range(16):
        r, g, b = colorsys.hsv_to_rgb(k / 16, 0.75, 0.85)
        cells = 4 + k % 4
        make(f"base-{k}", lambda x, y, r=r, g=g, b=b, c=cells: (
            (int(255 * r), int(255 * g), int(255 * b), 255) if ((x * c // n) + (y * c // n)) % 2 == 0
            else (int(255 * (1 - 0.5 * r)), int(255 * (1 - 0.5 * g)), int(255 * (1 - 0.5 * b)), 255)))
        make(f"roughness-{k}", lambda x, y, k=k: (0, int(255 * (0.25 + 0.6 * (0.5 + 0.5 * math.sin((x + 3 * k) * 0.1) * math.cos(y * 0.07)))), 0, 255))
    make("bumps", lambda x, y: (int(127.5 + 100 * math.cos(x * 2 * math.pi / 32)), int(127.5 + 100 * math.cos(y * 2 * math.pi / 32)), 200, 255))
    make("brushed", lambda x, y: (0, int(255 * (0.15 + 0.3 * ((x * 7919 + y * 13) % 97) / 97)), 255, 255))
    make("floor", lambda x, y: (210, 200, 190, 255) if ((x // 32) + (y // 32)) % 2 == 0 else (60, 55, 50, 255))
    return files


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


def sphere(center, radius, slices, stacks, seam=False):
    """Positions, indices, normals and UVs; `seam` repeats the first column at the end, so
    that UVs run 0..1 around without wrapping back."""
    columns = slices + 1 if seam else slices
    positions, normals, uvs = [], [], []
    for i in range(stacks + 1):
        theta = math.pi * i / stacks
        for j in range(columns):
            phi = 2 * math.pi * j / slices
            n = (math.sin(theta) * math.cos(phi), math.cos(theta), math.sin(theta) * math.sin(phi))
            normals.append(n)
            uvs.append((j / slices, i / stacks))
            positions.append(tuple(center[a] + radius * n[a] for a in range(3)))
    indices = []
    for i in range(stacks):
        for j in range(slices):
            a = i * columns + j
            b = i * columns + (j + 1) % columns
            c = a + columns
            d = b + columns
            # Counter-clockwise seen from outside; no degenerate triangles at the poles.
            if i != 0:
                indices += (a, b, c)
            if i != stacks - 1:
                indices += (b, d, c)
    return positions, indices, normals, uvs


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


def textured_materials(files):
    """The glTF materials of the textured variant, image index by sorted file name."""
    names = sorted(files)
    texture = lambda name, **extra: dict({"index": names.index(name)}, **extra)
    out = materials()[:4]
    out[0] = {"name": "floor", "pbrMetallicRoughness": {"baseColorTexture": texture("floor"), "metallicFactor": 0, "roughnessFactor": 0.6},
              "normalTexture": texture("bumps", scale=0.5)}
    for k in range(16):
        material = {"name": f"plastic-{k}", "pbrMetallicRoughness": {
            "baseColorTexture": texture(f"base-{k}"), "metallicFactor": 0.0, "roughnessFactor": 1.0,
            "metallicRoughnessTexture": texture(f"roughness-{k}")}}
        if k % 2 == 0:
            material["normalTexture"] = texture("bumps")
        out.append(material)
    for k in range(4):
        r, g, b = colorsys.hsv_to_rgb(k / 4, 0.3, 0.95)
        out.append({"name": f"metal-{k}", "pbrMetallicRoughness": {"baseColorFactor": [r, g, b, 1], "metallicFactor": 1, "roughnessFactor": 0.3 + 0.15 * k,
                                                                   "metallicRoughnessTexture": texture("brushed")}})
    for k in range(4):
        r, g, b = colorsys.hsv_to_rgb(k / 4, 0.5, 0.9)
        out.append({"name": f"glass-{k}", "pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, 1], "metallicFactor": 0, "roughnessFactor": 0.1 + 0.1 * k},
                    "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1}, "KHR_materials_ior": {"ior": 1.3 + 0.1 * k},
                                   "KHR_materials_volume": {"thicknessFactor": 1, "attenuationColor": [r, g, b],
                                                            "attenuationDistance": 0.2}}})
    return out, names


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out_dir")
    parser.add_argument("--slices", type=int, default=256)
    parser.add_argument("--stacks", type=int, default=84)
    variant = parser.add_mutually_exclusive_group()
    variant.add_argument("--textured", action="store_true")
    variant.add_argument("--diffuse", action="store_true")
    parser.add_argument("--name")
    args = parser.parse_args()
    os.makedirs(args.out_dir, exist_ok=True)
    stem = args.name or ("many-materials-textured" if args.textured else "many-materials")
    if args.textured:
        files = textures(args.out_dir)
        scene_materials, image_names = textured_materials(files)
    else:
        scene_materials, image_names = materials(), []

    meshes = []  # (name, positions, indices, material, normals or None, uvs or None)
    quad_uvs = [(0, 0), (4, 0), (4, 4), (0, 4)]
    for n, (corners, material) in enumerate(room()):
        meshes.append((f"room-{n}", corners, [0, 1, 2, 0, 2, 3], material, None, quad_uvs if args.textured else None))
    columns, rows, radius = 6, 4, 0.12
    for row in range(rows):
        for column in range(columns):
            k = row * columns + column
            # Diffuse spheres first, then mirrors and glasses spread over the grid.
            material = 4 + (k % 16 if args.diffuse else (k * 7) % 24)
            center = (-0.75 + 0.3 * column, -0.6 + 0.4 * row, -0.1 + 0.25 * ((row + column) % 2))
            positions, indices, normals, uvs = sphere(center, radius, args.slices, args.stacks, seam=args.textured)
            if args.textured:
                meshes.append((f"sphere-{k}", positions, indices, material, normals, uvs))
            else:
                meshes.append((f"sphere-{k}", positions, indices, material, None, None))

    blob = bytearray()
    accessors, views, gltf_meshes, nodes = [], [], [], []
    def attribute(values, kind, count_per):
        start = len(blob)
        for v in values:
            blob.extend(struct.pack(f"<{count_per}f", *v))
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34962})
        accessor = {"bufferView": len(views) - 1, "componentType": 5126, "count": len(values), "type": kind}
        if kind == "VEC3" and count_per == 3:
            accessor["min"] = [min(p[i] for p in values) for i in range(3)]
            accessor["max"] = [max(p[i] for p in values) for i in range(3)]
        accessors.append(accessor)
        return len(accessors) - 1

    for name, positions, indices, material, normals, uvs in meshes:
        attributes = {"POSITION": attribute(positions, "VEC3", 3)}
        if normals:
            attributes["NORMAL"] = attribute(normals, "VEC3", 3)
        if uvs:
            attributes["TEXCOORD_0"] = attribute(uvs, "VEC2", 2)
        start = len(blob)
        blob += struct.pack(f"<{len(indices)}I", *indices)
        views.append({"buffer": 0, "byteOffset": start, "byteLength": len(blob) - start, "target": 34963})
        accessors.append({"bufferView": len(views) - 1, "componentType": 5125, "count": len(indices), "type": "SCALAR"})
        gltf_meshes.append({"name": name, "primitives": [{"attributes": attributes, "indices": len(accessors) - 1, "material": material}]})
        nodes.append({"name": name, "mesh": len(gltf_meshes) - 1})
    nodes.append({"name": "camera", "camera": 0, "matrix": [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 3.9, 1]})
    document = {
        "asset": {"version": "2.0", "generator": "wavetrace tools/scenes/many_materials.py"},
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": gltf_meshes,
        "materials": scene_materials,
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.6860487863861751, "aspectRatio": 1.0, "znear": 0.001, "zfar": 100.0}}],
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob), "uri": f"{stem}.bin"}],
        "extensionsUsed": ["KHR_materials_emissive_strength", "KHR_materials_ior", "KHR_materials_specular", "KHR_materials_transmission"]
        + (["KHR_materials_volume"] if args.textured else []),
    }
    if image_names:
        document["images"] = [{"uri": files[name]} for name in image_names]
        document["textures"] = [{"source": i} for i in range(len(image_names))]
    with open(os.path.join(args.out_dir, f"{stem}.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(args.out_dir, f"{stem}.gltf"), "w") as f:
        json.dump(document, f, indent=1)
    triangles = sum(len(m[2]) // 3 for m in meshes)
    print(f"{len(meshes)} meshes, {len(scene_materials)} materials, {len(image_names)} textures, {triangles} triangles")


if __name__ == "__main__":
    main()
