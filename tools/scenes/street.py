#!/usr/bin/env python3
"""Writes light culling's benchmark scene (docs/LIGHT_CULLING.md): a city at night. A ground
plane with a grid of blocks of buildings (boxes of random height) and N point and spot lights
with a range (KHR_lights_punctual `range`): street lamps (spot lights pointing down, slightly
tilted, or point lights) along the streets and window lights (small point lights) on the
facades, of mixed colours, intensities and ranges. The city grows with N so that the density
of lights stays the same (about 20 a block): every point is reached by a few dozen lights, and
a global choice among all N wastes almost every sample. A camera stands above one corner and
looks across the city.

usage: street.py OUT_DIR [--lights N] [--seed S]
"""
import argparse
import math
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from many_lights_room import write_gltf  # noqa: E402

BLOCK = 40.0  # a block of buildings, metres
STREET = 12.0  # the street between blocks
PITCH = BLOCK + STREET
LIGHTS_PER_BLOCK = 20


def box(positions, indices, lo, hi):
    """A box without its bottom face, outward normals."""
    (x0, y0, z0), (x1, y1, z1) = lo, hi
    quads = [
        [(x0, y1, z0), (x0, y1, z1), (x1, y1, z1), (x1, y1, z0)],  # top, +y
        [(x0, y0, z1), (x1, y0, z1), (x1, y1, z1), (x0, y1, z1)],  # +z
        [(x1, y0, z0), (x0, y0, z0), (x0, y1, z0), (x1, y1, z0)],  # -z
        [(x1, y0, z1), (x1, y0, z0), (x1, y1, z0), (x1, y1, z1)],  # +x
        [(x0, y0, z0), (x0, y0, z1), (x0, y1, z1), (x0, y1, z0)],  # -x
    ]
    for q in quads:
        first = len(positions)
        positions.extend(q)
        indices.extend([first, first + 1, first + 2, first, first + 2, first + 3])


def rotation_from_minus_z(d):
    """The unit quaternion (x, y, z, w) turning -Z (a glTF light's direction) onto d."""
    a = (0.0, 0.0, -1.0)
    cross = (a[1] * d[2] - a[2] * d[1], a[2] * d[0] - a[0] * d[2], a[0] * d[1] - a[1] * d[0])
    w = 1.0 + sum(a[k] * d[k] for k in range(3))
    if w < 1e-6:
        return [1.0, 0.0, 0.0, 0.0]
    n = math.sqrt(sum(c * c for c in cross) + w * w)
    return [cross[0] / n, cross[1] / n, cross[2] / n, w / n]


def colour(rng):
    """Sodium, warm white, cool white, or a shop sign's saturated colour."""
    kind = rng.random()
    if kind < 0.35:
        return [1.0, 0.62, 0.25]
    if kind < 0.7:
        return [1.0, 0.85, 0.7]
    if kind < 0.9:
        return [0.75, 0.85, 1.0]
    hue = rng.random()
    return [0.5 + 0.5 * math.cos(2 * math.pi * (hue + s / 3)) for s in range(3)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out_dir")
    parser.add_argument("--lights", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    os.makedirs(args.out_dir, exist_ok=True)
    name = f"street-{args.lights}"

    blocks = max(2, math.ceil(math.sqrt(args.lights / LIGHTS_PER_BLOCK)))
    side = blocks * PITCH + STREET
    ground_p, ground_i = [], []
    ground_p.extend([(0, 0, 0), (0, 0, side), (side, 0, side), (side, 0, 0)])
    ground_i.extend([0, 1, 2, 0, 2, 3])
    build_p, build_i = [], []
    heights = {}
    for bx in range(blocks):
        for bz in range(blocks):
            x0, z0 = STREET + bx * PITCH, STREET + bz * PITCH
            # Two to four buildings a block, split along x.
            parts = rng.randint(2, 4)
            cuts = sorted(rng.uniform(0.2, 0.8) * BLOCK for _ in range(parts - 1))
            edges = [0.0] + cuts + [BLOCK]
            for a, b in zip(edges, edges[1:]):
                h = rng.uniform(8.0, 45.0)
                box(build_p, build_i, (x0 + a + 0.5, 0.0, z0 + 0.5), (x0 + b - 0.5, h, z0 + BLOCK - 0.5))
            heights[(bx, bz)] = h

    lights, light_nodes = [], []
    for n in range(args.lights):
        street_lamp = rng.random() < 0.6
        if street_lamp:
            # Along a street: pick a street line and a place on it, at lamp height.
            along = rng.uniform(0.0, side)
            line = rng.randrange(blocks + 1)
            offset = line * PITCH + STREET / 2 + rng.choice((-1, 1)) * rng.uniform(2.0, 5.0)
            position = [offset, rng.uniform(5.0, 8.0), along] if rng.random() < 0.5 else [along, rng.uniform(5.0, 8.0), offset]
            light = {"color": colour(rng), "intensity": rng.uniform(80.0, 600.0), "range": rng.uniform(12.0, 35.0)}
            if rng.random() < 0.6:
                outer = rng.uniform(0.6, 1.2)
                light["type"] = "spot"
                light["spot"] = {"innerConeAngle": outer * rng.uniform(0.3, 0.8), "outerConeAngle": outer}
                tilt = rng.uniform(0.0, 0.35)
                turn = rng.uniform(0.0, 2 * math.pi)
                d = [math.sin(tilt) * math.cos(turn), -math.cos(tilt), math.sin(tilt) * math.sin(turn)]
                rotation = rotation_from_minus_z(d)
            else:
                light["type"] = "point"
                rotation = [0.0, 0.0, 0.0, 1.0]
        else:
            # A window: just off a building's facade, on a block's edge.
            bx, bz = rng.randrange(blocks), rng.randrange(blocks)
            x0, z0 = STREET + bx * PITCH, STREET + bz * PITCH
            face = rng.randrange(4)
            t = rng.uniform(1.0, BLOCK - 1.0)
            y = rng.uniform(2.0, 30.0)
            position = [
                [x0 + t, y, z0 - 0.3],
                [x0 + t, y, z0 + BLOCK + 0.3],
                [x0 - 0.3, y, z0 + t],
                [x0 + BLOCK + 0.3, y, z0 + t],
            ][face]
            light = {"type": "point", "color": colour(rng), "intensity": rng.uniform(5.0, 60.0), "range": rng.uniform(3.0, 10.0)}
            rotation = [0.0, 0.0, 0.0, 1.0]
        lights.append(light)
        light_nodes.append({"name": f"light-{n}", "translation": position, "rotation": rotation,
                            "extensions": {"KHR_lights_punctual": {"light": n}}})

    materials = [
        {"name": "asphalt", "pbrMetallicRoughness": {"baseColorFactor": [0.3, 0.3, 0.32, 1], "metallicFactor": 0, "roughnessFactor": 1}},
        {"name": "concrete", "pbrMetallicRoughness": {"baseColorFactor": [0.55, 0.52, 0.5, 1], "metallicFactor": 0, "roughnessFactor": 0.8}},
    ]
    # Above the city's corner, looking across it towards the far corner and a little down.
    eye = [-20.0, 60.0, -20.0]
    target = [side * 0.45, 0.0, side * 0.45]
    d = [target[k] - eye[k] for k in range(3)]
    length = math.sqrt(sum(c * c for c in d))
    d = [c / length for c in d]
    # Keep the camera upright: look direction d with no roll (yaw about +Y, then pitch).
    yaw = math.atan2(-d[0], -d[2])
    pitch = math.asin(d[1])
    qy = [0.0, math.sin(yaw / 2), 0.0, math.cos(yaw / 2)]
    qx = [math.sin(pitch / 2), 0.0, 0.0, math.cos(pitch / 2)]
    q = [
        qy[3] * qx[0] + qy[0] * qx[3] + qy[1] * qx[2] - qy[2] * qx[1],
        qy[3] * qx[1] - qy[0] * qx[2] + qy[1] * qx[3] + qy[2] * qx[0],
        qy[3] * qx[2] + qy[0] * qx[1] - qy[1] * qx[0] + qy[2] * qx[3],
        qy[3] * qx[3] - qy[0] * qx[0] - qy[1] * qx[1] - qy[2] * qx[2],
    ]
    camera = {"name": "camera", "camera": 0, "translation": eye, "rotation": q}
    meshes = [(ground_p, ground_i, 0), (build_p, build_i, 1)]
    write_gltf(args.out_dir, name, meshes, materials, [camera] + light_nodes, {
        "asset": {"version": "2.0", "generator": "wavetrace tools/scenes/street.py"},
        "extensionsUsed": ["KHR_lights_punctual"],
        "extensions": {"KHR_lights_punctual": {"lights": lights}},
        "cameras": [{"type": "perspective", "perspective": {"yfov": 0.9, "aspectRatio": 1.0, "znear": 0.1, "zfar": 10000}}],
    })
    print(f"{name}: {blocks}x{blocks} blocks, {side:.0f} m a side, {args.lights} lights, {len(build_i) // 3 + 2} triangles")


if __name__ == "__main__":
    main()
