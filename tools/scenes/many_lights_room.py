#!/usr/bin/env python3
"""Writes the light BVH's benchmark scenes (docs/LIGHTS.md): a closed room (white floor,
ceiling and walls, red and green side walls, two boxes) lit only by N small emitters of mixed
power that sit a finger's width off the floor, walls, ceiling and boxes and face into the room:
what a scene of thousands of practical lights looks like, and what selection by power alone
handles badly (the nearest lights matter most, and half of all lights face away from any
given surface). Powers span three decades; colours vary. Lights are grouped into 8 meshes by
power class, one material each.

Quads (two triangles) by default; --triangles writes single-triangle emitters, for the build
timings of 10^5 and 10^6 emitters. A camera looks into the room from one end.

usage: many_lights_room.py OUT_DIR [--lights N] [--triangles] [--seed S]
"""
import argparse
import json
import math
import os
import random
import struct

CLASSES = 8


def room(mesh):
    """The room's walls and boxes as (positions, indices, material) lists."""
    def quad(a, b, c, d, material):
        mesh.append(([a, b, c, d], [0, 1, 2, 0, 2, 3], material))

    # A 4 x 2.5 x 6 room: x in [-2, 2], y in [0, 2.5], z in [-3, 3]; normals point inwards.
    x0, x1, y0, y1, z0, z1 = -2.0, 2.0, 0.0, 2.5, -3.0, 3.0
    quad((x0, y0, z0), (x0, y0, z1), (x1, y0, z1), (x1, y0, z0), 0)  # floor, +y
    quad((x0, y1, z0), (x1, y1, z0), (x1, y1, z1), (x0, y1, z1), 0)  # ceiling, -y
    quad((x0, y0, z0), (x1, y0, z0), (x1, y1, z0), (x0, y1, z0), 0)  # back, +z
    quad((x0, y0, z1), (x0, y1, z1), (x1, y1, z1), (x1, y0, z1), 0)  # front, -z
    quad((x0, y0, z0), (x0, y1, z0), (x0, y1, z1), (x0, y0, z1), 1)  # left, +x
    quad((x1, y0, z0), (x1, y0, z1), (x1, y1, z1), (x1, y1, z0), 2)  # right, -x
    for cx, cz, w, h in ((-0.8, -1.2, 0.7, 1.2), (0.9, 0.4, 0.8, 0.6)):
        a, b = (cx - w / 2, cz - w / 2), (cx + w / 2, cz + w / 2)
        quad((a[0], h, a[1]), (a[0], h, b[1]), (b[0], h, b[1]), (b[0], h, a[1]), 0)  # top
        quad((a[0], 0, a[1]), (b[0], 0, a[1]), (b[0], h, a[1]), (a[0], h, a[1]), 0)  # -z
        quad((a[0], 0, b[1]), (a[0], h, b[1]), (b[0], h, b[1]), (b[0], 0, b[1]), 0)  # +z
        quad((a[0], 0, a[1]), (a[0], h, a[1]), (a[0], h, b[1]), (a[0], 0, b[1]), 0)  # -x
        quad((b[0], 0, a[1]), (b[0], 0, b[1]), (b[0], h, b[1]), (b[0], h, a[1]), 0)  # +x


def surfaces():
    """Where lights go: (origin, u axis, v axis, normal, extent u, extent v) of each surface."""
    out = [
        ((-2, 0, -3), (1, 0, 0), (0, 0, 1), (0, 1, 0), 4, 6),   # floor
        ((-2, 2.5, -3), (1, 0, 0), (0, 0, 1), (0, -1, 0), 4, 6),  # ceiling
        ((-2, 0, -3), (1, 0, 0), (0, 1, 0), (0, 0, 1), 4, 2.5),  # back
        ((-2, 0, 3), (1, 0, 0), (0, 1, 0), (0, 0, -1), 4, 2.5),  # front
        ((-2, 0, -3), (0, 0, 1), (0, 1, 0), (1, 0, 0), 6, 2.5),  # left
        ((2, 0, -3), (0, 0, 1), (0, 1, 0), (-1, 0, 0), 6, 2.5),  # right
    ]
    return out


def lights(count, triangles, rng):
    """Per power class: positions and indices of its emitters."""
    classes = [([], []) for _ in range(CLASSES)]
    places = surfaces()
    areas = [p[4] * p[5] for p in places]
    for _ in range(count):
        origin, u, v, n, eu, ev = rng.choices(places, weights=areas)[0]
        a, b = rng.uniform(0.02, eu - 0.02), rng.uniform(0.02, ev - 0.02)
        offset = rng.uniform(0.005, 0.03)
        size = rng.uniform(0.01, 0.04)
        centre = [origin[k] + a * u[k] + b * v[k] + offset * n[k] for k in range(3)]
        klass = rng.randrange(CLASSES)
        positions, indices = classes[klass]
        first = len(positions)
        h = size / 2
        corners = [(-h, -h), (h, -h), (h, h), (-h, h)]
        for cu, cv in corners[: 3 if triangles else 4]:
            positions.append([centre[k] + cu * u[k] + cv * v[k] for k in range(3)])
        # Counter-clockwise about n: u x v = +-n, so wind by the sign.
        cross = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
        facing = sum(cross[k] * n[k] for k in range(3)) > 0
        tris = [(0, 1, 2)] if triangles else [(0, 1, 2), (0, 2, 3)]
        for t in tris:
            t = t if facing else (t[0], t[2], t[1])
            indices.extend(first + i for i in t)
    return classes


def write_gltf(out_dir, name, meshes, materials, extra_nodes, fields):
    """Writes NAME.gltf and NAME.bin to OUT_DIR: one node per (positions, indices, material)
    mesh, then `extra_nodes`; `fields` adds the asset, cameras, extensions. Returns the blob."""
    blob = bytearray()
    views, accessors, gltf_meshes, nodes = [], [], [], []
    for m, (positions, indices, material) in enumerate(meshes):
        flat = [c for p in positions for c in p]
        lo = [min(p[k] for p in positions) for k in range(3)]
        hi = [max(p[k] for p in positions) for k in range(3)]
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": 4 * len(flat)})
        blob += struct.pack(f"<{len(flat)}f", *flat)
        accessors.append({"bufferView": len(views) - 1, "componentType": 5126, "count": len(positions), "type": "VEC3", "min": lo, "max": hi})
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": 4 * len(indices)})
        blob += struct.pack(f"<{len(indices)}I", *indices)
        accessors.append({"bufferView": len(views) - 1, "componentType": 5125, "count": len(indices), "type": "SCALAR"})
        gltf_meshes.append({"primitives": [{"attributes": {"POSITION": len(accessors) - 2}, "indices": len(accessors) - 1, "material": material}]})
        nodes.append({"mesh": m, "name": f"mesh-{m}"})
    nodes.extend(extra_nodes)
    gltf = dict(fields)
    gltf.update({
        "scene": 0,
        "scenes": [{"nodes": list(range(len(nodes)))}],
        "nodes": nodes,
        "meshes": gltf_meshes,
        "materials": materials,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"uri": f"{name}.bin", "byteLength": len(blob)}],
    })
    with open(os.path.join(out_dir, f"{name}.bin"), "wb") as f:
        f.write(blob)
    with open(os.path.join(out_dir, f"{name}.gltf"), "w") as f:
        json.dump(gltf, f, separators=(",", ":"))
    return blob


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--lights", type=int, default=10000)
    parser.add_argument("--triangles", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    name = f"many-lights-room-{args.lights}" + ("-triangles" if args.triangles else "")

    meshes = []
    room(meshes)
    materials = [
        {"name": "white", "pbrMetallicRoughness": {"baseColorFactor": [0.7, 0.7, 0.7, 1], "metallicFactor": 0, "roughnessFactor": 1}},
        {"name": "red", "pbrMetallicRoughness": {"baseColorFactor": [0.6, 0.1, 0.08, 1], "metallicFactor": 0, "roughnessFactor": 1}},
        {"name": "green", "pbrMetallicRoughness": {"baseColorFactor": [0.12, 0.5, 0.1, 1], "metallicFactor": 0, "roughnessFactor": 1}},
    ]
    for k, (positions, indices) in enumerate(lights(args.lights, args.triangles, rng)):
        # Three decades of power; warm to cool colours. Strengths beyond 1 ride on
        # KHR_materials_emissive_strength.
        strength = 10 ** (3 * k / (CLASSES - 1)) * 0.05
        hue = k / CLASSES
        colour = [0.6 + 0.4 * math.cos(2 * math.pi * (hue + s / 3)) for s in range(3)]
        top = max(colour)
        materials.append({
            "name": f"lights-{k}",
            "emissiveFactor": [c / top for c in colour],
            "extensions": {"KHR_materials_emissive_strength": {"emissiveStrength": strength * top}},
            "pbrMetallicRoughness": {"baseColorFactor": [0, 0, 0, 1], "metallicFactor": 0, "roughnessFactor": 1},
        })
        if indices:
            meshes.append((positions, indices, len(materials) - 1))

    # The camera at the front wall looking down the room (-Z), slightly from above.
    camera = {"name": "camera", "camera": 0, "translation": [0, 1.3, 2.9]}
    blob = write_gltf(args.out_dir, name, meshes, materials, [camera], {
        "asset": {"version": "2.0", "generator": "wavetrace tools/scenes/many_lights_room.py"},
        "extensionsUsed": ["KHR_materials_emissive_strength"],
        "cameras": [{"type": "perspective", "perspective": {"yfov": 1.1, "aspectRatio": 1.0, "znear": 0.01, "zfar": 100}}],
    })
    emitters = sum(len(i) // 3 for _, i, m in meshes if m >= 3)
    print(f"{name}: {emitters} emissive triangles, {len(blob)} bytes of buffer")


if __name__ == "__main__":
    main()
