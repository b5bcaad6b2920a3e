#!/usr/bin/env python3
"""Writes a random glTF scene inside REFERENCE.md's subset, the scenes a Mitsuba reference can be
made of (tools/bench/peer/gltf2mitsuba.py): flat-shaded triangle meshes (no NORMAL), node
hierarchies with TRS and matrix transforms (mirroring ones too), meshes shared by several nodes,
Lambertian, perfect-mirror and smooth-glass materials, one-sided emitters of mixed colour and
strength facing any way, an enclosing room or none, a perspective camera anywhere in the
hierarchy, and indices of every width or none. tools/mitsuba-check.sh renders such scenes with
both renderers and compares them: scenes nobody chose, so that wavetrace is checked against
glTF in general, not against the test scenes.

With --wide the scene also has what REFERENCE.md's subset leaves out but both renderers mean the
same by (tools/scenes/gltf2mitsuba_wide.py converts it): base-colour and emissive textures (PNG,
nearest or bilinear without mipmaps, one wrap mode for both axes; emissive ones on quads whose
texture coordinates cover the unit square once, the only textured emitters Mitsuba samples right), smooth vertex normals on
spheres, KHR_lights_punctual point, spot (a hard cone edge) and directional lights, and an
environment (`asset.extras.environment`: a constant colour, or an equirectangular HDR map written
beside the scene as OUT-sky.hdr with a turn about +Y and a strength; the renderers take it from
their command lines). Seeds give the same scenes without --wide as before it existed.

With --wider the scene has all of --wide and also, where both renderers mean the same by them:
alpha (MASK with a cutoff, or BLEND, from an RGBA base-colour texture read nearest, as the
alpha test reads the finest texel), KHR_texture_transform on base-colour textures (offset,
rotation, scale), and absorbing glass (KHR_materials_volume on closed shapes: Beer's law inside,
which Mitsuba renders as a homogeneous medium of albedo 0 behind its dielectric). Seeds give the
same scenes with --wide as before --wider existed.

With --near (beside any of the above) the camera's znear cuts something away: a quad or a
triangle (Lambertian, a mirror or an emitter, turned any way) hangs under the camera node
before the near plane, which Mitsuba's near_clip and wavetrace's camera rays pass, while it
still blocks, reflects and emits light for every other ray. Its numbers come from a generator
of its own, so the rest of each seed's scene is the same as without --near.

With --orthographic the camera is glTF's orthographic one at the same place, ymag (and xmag) the
half-height the pinhole saw at the point it looks at, znear its znear (with --near, what lies
before the plane stays cut away); nothing else changes.

usage: random_scene.py SEED OUT.gltf [--wide | --wider] [--near] [--orthographic]    (prints the resolution and depth to render it at)
"""
import zlib
import base64
import json
import math
import random
import struct
import sys


def normalize(v):
    n = math.sqrt(sum(x * x for x in v))
    return [x / n for x in v]


def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def sub(a, b):
    return [x - y for x, y in zip(a, b)]


def box(inward=False, open_side=None):
    """The unit cube [-1, 1]^3, counter-clockwise from outside (from inside when `inward`), less one side."""
    positions, indices = [], []
    for axis in range(3):
        for sign in (-1, 1):
            if open_side == (axis, sign):
                continue
            u, v = (axis + 1) % 3, (axis + 2) % 3
            corners = []
            for a, b in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                p = [0.0, 0.0, 0.0]
                p[axis], p[u], p[v] = sign, a, b
                corners.append(p)
            if (sign < 0) != inward:
                corners.reverse()
            base = len(positions)
            positions += corners
            indices += [base, base + 1, base + 2, base, base + 2, base + 3]
    return positions, indices


def octahedron():
    p = [[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]]
    faces = []
    for x in (0, 1):
        for y in (2, 3):
            for z in (4, 5):
                tri = [x, y, z]
                n = cross(sub(p[y], p[x]), sub(p[z], p[x]))
                if sum(a * b for a, b in zip(n, p[x])) < 0:
                    tri = [x, z, y]
                faces += tri
    return [list(map(float, v)) for v in p], faces


def tetrahedron():
    p = [[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]
    return [list(map(float, v)) for v in p], [0, 1, 2, 0, 3, 1, 0, 2, 3, 1, 3, 2]


def quad():
    return [[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]], [0, 1, 2, 0, 2, 3]


def triangle():
    return [[-1.0, -0.8, 0.0], [1.0, -0.6, 0.0], [0.1, 1.0, 0.0]], [0, 1, 2]


def icosphere(subdivisions=1):
    t = (1 + math.sqrt(5)) / 2
    p = [normalize(v) for v in [[-1, t, 0], [1, t, 0], [-1, -t, 0], [1, -t, 0], [0, -1, t], [0, 1, t], [0, -1, -t],
                                [0, 1, -t], [t, 0, -1], [t, 0, 1], [-t, 0, -1], [-t, 0, 1]]]
    f = [0, 11, 5, 0, 5, 1, 0, 1, 7, 0, 7, 10, 0, 10, 11, 1, 5, 9, 5, 11, 4, 11, 10, 2, 10, 7, 6, 7, 1, 8,
         3, 9, 4, 3, 4, 2, 3, 2, 6, 3, 6, 8, 3, 8, 9, 4, 9, 5, 2, 4, 11, 6, 2, 10, 8, 6, 7, 9, 8, 1]
    cache = {}

    def mid(a, b):
        key = (min(a, b), max(a, b))
        if key not in cache:
            p.append(normalize([(x + y) / 2 for x, y in zip(p[a], p[b])]))
            cache[key] = len(p) - 1
        return cache[key]
    for _ in range(subdivisions):
        out = []
        for i in range(0, len(f), 3):
            a, b, c = f[i:i + 3]
            ab, bc, ca = mid(a, b), mid(b, c), mid(c, a)
            out += [a, ab, ca, b, bc, ab, c, ca, bc, ab, bc, ca]
        f = out
    return p, f


# The shapes that enclose a volume (a box's six sides are all there unless `open_side` says).
CLOSED = {"box", "octahedron", "tetrahedron", "icosphere"}
SHAPES = {"box": box, "octahedron": octahedron, "tetrahedron": tetrahedron, "quad": quad, "triangle": triangle,
          "icosphere": icosphere}


def random_rotation(rng):
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    return [math.sqrt(1 - u1) * math.sin(2 * math.pi * u2), math.sqrt(1 - u1) * math.cos(2 * math.pi * u2),
            math.sqrt(u1) * math.sin(2 * math.pi * u3), math.sqrt(u1) * math.cos(2 * math.pi * u3)]


def trs_matrix(t, r, s):
    x, y, z, w = r
    m = [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
         [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
         [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]
    # Column-major, as glTF stores a matrix.
    return [m[0][0] * s[0], m[1][0] * s[0], m[2][0] * s[0], 0, m[0][1] * s[1], m[1][1] * s[1], m[2][1] * s[1], 0,
            m[0][2] * s[2], m[1][2] * s[2], m[2][2] * s[2], 0, t[0], t[1], t[2], 1]


def look_rotation(eye, target):
    """The quaternion that turns -Z toward target from eye, with +Y as near up as it can."""
    f = normalize(sub(target, eye))
    r = normalize(cross(f, [0, 1, 0]))
    u = cross(r, f)
    m = [[r[0], u[0], -f[0]], [r[1], u[1], -f[1]], [r[2], u[2], -f[2]]]
    trace = m[0][0] + m[1][1] + m[2][2]
    if trace > 0:
        s = 0.5 / math.sqrt(trace + 1)
        return [(m[2][1] - m[1][2]) * s, (m[0][2] - m[2][0]) * s, (m[1][0] - m[0][1]) * s, 0.25 / s]
    i = max(range(3), key=lambda k: m[k][k])
    j, k = (i + 1) % 3, (i + 2) % 3
    s = 2 * math.sqrt(1 + m[i][i] - m[j][j] - m[k][k])
    q = [0.0, 0.0, 0.0, (m[k][j] - m[j][k]) / s]
    q[i] = 0.25 * s
    q[j] = (m[j][i] + m[i][j]) / s
    q[k] = (m[k][i] + m[i][k]) / s
    return q


def png(width, height, rgb):
    """An 8-bit RGB PNG of rows of (r, g, b) texels, top row first (RGBA where texels have four)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes(v for texel in rgb[y * width:(y + 1) * width] for v in texel) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 6 if len(rgb[0]) == 4 else 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")


def write_sky(rng, path, width=256, height=128):
    """A Radiance HDR equirectangular sky in wavetrace's orientation (u = atan2(x, -z) / 2 pi from
    the left, v = acos(y) / pi from the top): a gradient over a ground, and one or two bright
    Gaussian lobes (suns 6-15 degrees wide, up to some hundreds of times the sky) that light
    sampling must find."""
    sky, ground = [rng.uniform(0.1, 1.0) for _ in range(3)], [rng.uniform(0.05, 0.5) for _ in range(3)]
    lobes = []
    for _ in range(rng.randint(1, 2)):
        z, phi = rng.uniform(-0.3, 1.0), rng.uniform(0, 2 * math.pi)
        r = math.sqrt(1 - z * z)
        lobes.append(([r * math.cos(phi), z, r * math.sin(phi)], math.radians(rng.uniform(6, 15)),
                      [rng.uniform(20, 300) * c for c in (rng.uniform(0.6, 1), rng.uniform(0.6, 1), rng.uniform(0.6, 1))]))
    rows = []
    for j in range(height):
        theta = (j + 0.5) / height * math.pi
        row = []
        for i in range(width):
            phi = (i + 0.5) / width * 2 * math.pi
            d = [math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi)]
            base = [s * (0.3 + 0.7 * d[1]) if d[1] > 0 else g for s, g in zip(sky, ground)]
            for axis, width_angle, colour in lobes:
                angle = math.acos(max(-1.0, min(1.0, sum(a * b for a, b in zip(d, axis)))))
                weight = math.exp(-0.5 * (angle / width_angle) ** 2)
                base = [b + c * weight for b, c in zip(base, colour)]
            row.append(base)
        rows.append(row)
    with open(path, "wb") as f:
        f.write(f"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n-Y {height} +X {width}\n".encode())
        for row in rows:
            data = bytearray()
            for r, g, b in row:
                m = max(r, g, b)
                mantissa, exponent = math.frexp(m)
                scale = mantissa * 256 / m
                texel = [int(r * scale), int(g * scale), int(b * scale), exponent + 128]
                if texel[0] == 2 and texel[1] == 2:
                    texel[0] = 3  # never the start of a run-length encoded scanline
                data += bytes(texel)
            f.write(bytes(data))


def main():
    seed, out = int(sys.argv[1]), sys.argv[2]
    wider = "--wider" in sys.argv[3:]
    wide = wider or "--wide" in sys.argv[3:]
    near = "--near" in sys.argv[3:]
    orthographic = "--orthographic" in sys.argv[3:]
    rng = random.Random(seed)
    blob = bytearray()
    views, accessors, meshes, materials, nodes, roots = [], [], [], [], [], []
    images, textures, samplers, lights = [], [], [], []
    extensions_used = ["KHR_materials_specular", "KHR_materials_transmission", "KHR_materials_ior",
                       "KHR_materials_emissive_strength"]

    def add_view(data, target):
        while len(blob) % 4:
            blob.append(0)
        views.append({"buffer": 0, "byteOffset": len(blob), "byteLength": len(data), "target": target})
        blob.extend(data)
        return len(views) - 1

    def add_primitive(shape, material, smooth=False, unit_uv=False):
        positions, indices = shape
        width = rng.choice(["none", "u8", "u16", "u32"])
        # A unit sphere's smooth normals are its positions.
        normals = [normalize(p) for p in positions] if smooth else None
        if width == "none":
            # Non-indexed: every corner its own vertex, which may carry its face's normal (the
            # converter shades flat, and so does an interpolated face normal).
            positions, indices = [positions[i] for i in indices], None
            if smooth:
                normals = [normalize(p) for p in positions]
            elif rng.random() < 0.5:
                normals = []
                for k in range(0, len(positions), 3):
                    a, b, c = positions[k:k + 3]
                    normals += [normalize(cross(sub(b, a), sub(c, a)))] * 3
        elif width == "u8" and len(positions) > 255:
            width = "u16"
        bounds = {"min": [min(p[i] for p in positions) for i in range(3)], "max": [max(p[i] for p in positions) for i in range(3)]}
        if normals or rng.random() < 0.3:
            # Interleaved: position, then the normal or padding, in one strided view.
            data = b"".join(struct.pack("<6f", *p, *(normals[k] if normals else (7.0, 7.0, 7.0)))
                            for k, p in enumerate(positions))
            view = add_view(data, 34962)
            views[view]["byteStride"] = 24
            accessors.append({"bufferView": view, "componentType": 5126, "count": len(positions), "type": "VEC3", **bounds})
            attributes = {"POSITION": len(accessors) - 1}
            if normals:
                accessors.append({"bufferView": view, "byteOffset": 12, "componentType": 5126, "count": len(positions),
                                  "type": "VEC3"})
                attributes["NORMAL"] = len(accessors) - 1
        else:
            data = b"".join(struct.pack("<3f", *p) for p in positions)
            accessors.append({"bufferView": add_view(data, 34962), "componentType": 5126, "count": len(positions),
                              "type": "VEC3", **bounds})
            attributes = {"POSITION": len(accessors) - 1}
        if unit_uv:
            # The quad's corners at the unit square's: Mitsuba samples a textured emitter
            # through its texture, which needs a map that covers [0, 1]^2 once.
            uvs = [((p[0] + 1) / 2, (1 - p[1]) / 2) for p in positions]
        elif wide:
            # Texture coordinates a linear function of the position, several repeats across
            # the shape, so that the wrap mode shows.
            a, b = [rng.uniform(-1.5, 1.5) for _ in range(3)], [rng.uniform(-1.5, 1.5) for _ in range(3)]
            offset = [rng.uniform(-1, 1), rng.uniform(-1, 1)]
            uvs = [(sum(x * y for x, y in zip(p, a)) + offset[0], sum(x * y for x, y in zip(p, b)) + offset[1])
                   for p in positions]
        if unit_uv or wide:
            accessors.append({"bufferView": add_view(b"".join(struct.pack("<2f", *uv) for uv in uvs), 34962),
                              "componentType": 5126, "count": len(uvs), "type": "VEC2"})
            attributes["TEXCOORD_0"] = len(accessors) - 1
        primitive = {"attributes": attributes, "material": material}
        if indices is not None:
            fmt, kind = {"u8": ("<B", 5121), "u16": ("<H", 5123), "u32": ("<I", 5125)}[width]
            data = b"".join(struct.pack(fmt, i) for i in indices)
            accessors.append({"bufferView": add_view(data, 34963), "componentType": kind, "count": len(indices),
                              "type": "SCALAR"})
            primitive["indices"] = len(accessors) - 1
        return primitive

    def add_mesh(name, shape, material, second=None, smooth=False, unit_uv=False):
        """A mesh of `shape`, and where `second` is a (shape, material) a second primitive beside it."""
        primitives = [add_primitive(shape, material, smooth, unit_uv)]
        if second:
            (positions, indices), other = second
            primitives.append(add_primitive(([[x * 0.5 + 1.6, y * 0.5, z * 0.5] for x, y, z in positions], indices), other))
        meshes.append({"name": name, "primitives": primitives})
        return len(meshes) - 1

    def add_texture(alpha=False):
        """A small random sRGB texture behind a sampler without mipmaps; with `alpha` an RGBA one,
        read nearest, whose alpha is 0 or 1 in a third of its texels each."""
        w, h = rng.choice([2, 4, 8, 16]), rng.choice([2, 4, 8, 16])
        texels = [tuple(rng.randrange(20, 240) for _ in range(3)) for _ in range(w * h)]
        if alpha:
            texels = [t + (rng.choice([0, 255, rng.randrange(256)]),) for t in texels]
        images.append({"uri": "data:image/png;base64," + base64.b64encode(png(w, h, texels)).decode()})
        nearest = alpha or rng.random() < 0.5
        wrap = rng.choice([10497, 33648, 33071])
        samplers.append({"magFilter": 9728 if nearest else 9729, "minFilter": 9728 if nearest else 9729,
                         "wrapS": wrap, "wrapT": wrap})
        textures.append({"source": len(images) - 1, "sampler": len(samplers) - 1})
        return len(textures) - 1

    def add_material(kind, emission=None, emission_texture=False, closed=False):
        """A material of `kind`; `closed`: the shape it goes on encloses a volume."""
        name = f"{kind}-{len(materials)}"
        if kind == "texture":
            alpha = wider and rng.choice([None, None, "MASK", "BLEND"])
            m = {"name": name, "pbrMetallicRoughness": {"baseColorFactor": [rng.uniform(0.5, 1.0) for _ in range(3)] + [1],
                                                        "baseColorTexture": {"index": add_texture(bool(alpha))},
                                                        "metallicFactor": 0},
                 "extensions": {"KHR_materials_specular": {"specularFactor": 0}}}
            if alpha:
                m["alphaMode"] = alpha
                m["pbrMetallicRoughness"]["baseColorFactor"][3] = round(rng.uniform(0.6, 1.0), 3)
                if alpha == "MASK":
                    m["alphaCutoff"] = round(rng.uniform(0.2, 0.8), 3)
            if wider and rng.random() < 0.5:
                transform = {"offset": [round(rng.uniform(-1, 1), 3), round(rng.uniform(-1, 1), 3)],
                             "rotation": round(rng.uniform(-math.pi, math.pi), 3),
                             "scale": [round(rng.uniform(0.3, 3), 3), round(rng.uniform(0.3, 3), 3)]}
                m["pbrMetallicRoughness"]["baseColorTexture"]["extensions"] = {"KHR_texture_transform": transform}
                extensions_used.append("KHR_texture_transform")
        elif kind == "lambert":
            m = {"name": name, "pbrMetallicRoughness": {"baseColorFactor": [rng.uniform(0.05, 0.9) for _ in range(3)] + [1],
                                                        "metallicFactor": 0},
                 "extensions": {"KHR_materials_specular": {"specularFactor": 0}}}
        elif kind == "mirror":
            m = {"name": name, "pbrMetallicRoughness": {"baseColorFactor": [rng.uniform(0.3, 1.0) for _ in range(3)] + [1],
                                                        "metallicFactor": 1, "roughnessFactor": 0}}
        else:
            m = {"name": name, "pbrMetallicRoughness": {"metallicFactor": 0, "roughnessFactor": 0},
                 "extensions": {"KHR_materials_transmission": {"transmissionFactor": 1},
                                "KHR_materials_ior": {"ior": round(rng.uniform(1.2, 1.9), 3)}}}
            if wider and closed and rng.random() < 0.6:
                # What is left of each channel after the distance, in units of the shapes' size.
                m["extensions"]["KHR_materials_volume"] = {
                    "thicknessFactor": 1.0, "attenuationDistance": round(rng.uniform(0.2, 2.0), 3),
                    "attenuationColor": [round(rng.uniform(0.1, 0.95), 3) for _ in range(3)]}
                extensions_used.append("KHR_materials_volume")
        if emission:
            colour, strength = emission
            m["emissiveFactor"] = colour
            m.setdefault("extensions", {})["KHR_materials_emissive_strength"] = {"emissiveStrength": strength}
            if emission_texture:
                m["emissiveTexture"] = {"index": add_texture()}
        materials.append(m)
        return len(materials) - 1

    def place(mesh, name, spread, size):
        t = [rng.uniform(-spread, spread) for _ in range(3)]
        r = random_rotation(rng)
        s = [rng.uniform(0.3, 1.0) * size for _ in range(3)]
        if rng.random() < 0.2:
            s[rng.randrange(3)] *= -1  # a mirroring transform flips the winding
        node = {"name": name, "mesh": mesh}
        if rng.random() < 0.3:
            node["matrix"] = trs_matrix(t, r, s)
        else:
            node.update(translation=t, rotation=r, scale=s)
        if rng.random() < 0.3:
            # Under a parent that turns and shifts it: the child keeps its place in the world
            # only as the parent's transform says, which is the point.
            parent = {"name": f"{name}-parent", "translation": [rng.uniform(-0.3, 0.3) for _ in range(3)],
                      "rotation": random_rotation(rng), "children": []}
            nodes.append(node)
            parent["children"].append(len(nodes) - 1)
            nodes.append(parent)
            roots.append(len(nodes) - 1)
        else:
            nodes.append(node)
            roots.append(len(nodes) - 1)

    # A second camera, first in the node array but later in the depth-first walk from the
    # roots, which is the order REFERENCE.md picks the camera by: it must not render.
    decoy = None
    if rng.random() < 0.4:
        nodes.append({"name": "decoy-camera", "camera": 0, "translation": [0, 0, -2.5]})
        decoy = len(nodes) - 1
    room = rng.random() < 0.6
    if room:
        open_side = rng.choice([None, (0, 1), (2, -1)])
        walls = add_mesh("room", box(inward=True, open_side=open_side), add_material("lambert"))
        nodes.append({"name": "room", "mesh": walls, "scale": [3, 2, 3], "translation": [0, 0, 0]})
        roots.append(len(nodes) - 1)
    shared = {}
    kinds, weights = ["lambert", "mirror", "glass"], [0.7, 0.15, 0.15]
    if wide:
        kinds, weights = kinds + ["texture"], [0.35, 0.15, 0.15, 0.35]
    for k in range(rng.randint(2, 6)):
        shape = rng.choice(list(SHAPES))
        kind = rng.choices(kinds, weights)[0]
        if shape in shared and rng.random() < 0.5:
            mesh = shared[shape]
        else:
            second = None
            if rng.random() < 0.3:
                other = rng.choice(list(SHAPES))
                second = (SHAPES[other](), add_material(rng.choice(kinds), closed=other in CLOSED))
            smooth = wide and shape == "icosphere" and rng.random() < 0.6
            # Smooth spheres of 1,280 faces, whose normals stay within a few degrees of their
            # faces': where a reflection or refraction about the interpolated normal falls on the
            # wrong side of the face, wavetrace drops it and Mitsuba follows it (a glass sphere of
            # 80 faces came out 2% apart).
            geometry = icosphere(3) if smooth else SHAPES[shape]()
            mesh = add_mesh(f"{shape}-{k}", geometry, add_material(kind, closed=shape in CLOSED), second, smooth)
            shared[shape] = mesh
        place(mesh, f"object-{k}", 1.2, 0.45)
    for k in range(rng.randint(1, 3)):
        colour = [rng.uniform(0.2, 1.0) for _ in range(3)]
        strength = round(rng.uniform(1, 25), 3)
        shape = rng.choice(["quad", "triangle", "box", "tetrahedron"])
        textured = wide and shape == "quad" and rng.random() < 0.6
        mesh = add_mesh(f"light-{k}", SHAPES[shape](), add_material("lambert", (colour, strength), textured),
                        unit_uv=textured)
        place(mesh, f"light-{k}", 1.6, 0.35)

    environment = None
    if wide:
        for k in range(rng.choice([0, 1, 1, 2])):
            kind = rng.choice(["point", "spot", "directional"])
            colour = [round(rng.uniform(0.3, 1.0), 3) for _ in range(3)]
            light = {"name": f"{kind}-{k}", "type": kind, "color": colour,
                     "intensity": round(rng.uniform(0.5, 4.0) if kind == "directional" else rng.uniform(1, 15), 3)}
            if kind == "spot":
                # A hard edge (the inner cone 0.01 rad inside the outer, or a ten-thousandth of
                # it, as for Blender's spots of no blend). glTF leaves the falloff between the
                # cones free; the converter hands Mitsuba wavetrace's as a projected texture.
                outer = round(rng.uniform(0.3, 1.2), 3)
                inner = outer - rng.choice([0.01, outer * 1e-4])
                light["spot"] = {"innerConeAngle": inner, "outerConeAngle": outer}
            lights.append(light)
            node = {"name": f"{kind}-light-{k}", "translation": [rng.uniform(-1.6, 1.6) for _ in range(3)],
                    "rotation": random_rotation(rng), "extensions": {"KHR_lights_punctual": {"light": len(lights) - 1}}}
            nodes.append(node)
            roots.append(len(nodes) - 1)
        pick = rng.random()
        if pick < 0.3:
            environment = [round(rng.uniform(0.05, 1.0), 3) for _ in range(3)]
        elif pick < 0.6:
            environment = out[:-len(".gltf")] + "-sky.hdr" if out.endswith(".gltf") else out + "-sky.hdr"
            write_sky(rng, environment)
            # The map turned about +Y (counter-clockwise seen from above) and scaled.
            environment = {"map": environment.rsplit("/", 1)[-1], "rotation": round(rng.uniform(-180, 180), 2),
                           "strength": round(rng.uniform(0.3, 2.0), 3)}

    eye = [rng.uniform(-2.2, 2.2), rng.uniform(-1.2, 1.4), rng.uniform(2.0, 2.8)]
    target = [rng.uniform(-0.5, 0.5) for _ in range(3)]
    camera = {"name": "camera", "camera": 0, "translation": eye, "rotation": look_rotation(eye, target)}
    if rng.random() < 0.3:
        # The camera under a parent turned about Y: its world pose is the product.
        angle = rng.uniform(-1, 1)
        camera_parent = {"name": "rig", "rotation": [0, math.sin(angle / 2), 0, math.cos(angle / 2)], "children": []}
        c, s = math.cos(angle), math.sin(angle)
        # Undo the turn on the child so that the camera still looks at the scene.
        camera["translation"] = [c * eye[0] - s * eye[2], eye[1], s * eye[0] + c * eye[2]]
        inverse = [0, -math.sin(angle / 2), 0, math.cos(angle / 2)]
        q = camera["rotation"]
        a, b = inverse, q
        camera["rotation"] = [a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
                              a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
                              a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
                              a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2]]
        nodes.append(camera)
        camera_parent["children"].append(len(nodes) - 1)
        nodes.append(camera_parent)
        roots.insert(rng.randrange(len(roots) + 1), len(nodes) - 1)
    else:
        nodes.append(camera)
        roots.insert(rng.randrange(len(roots) + 1), len(nodes) - 1)

    if decoy is not None:
        camera_root = max(i for i, root in enumerate(roots) if root >= len(nodes) - 2)
        roots.insert(rng.randrange(camera_root + 1, len(roots) + 1), decoy)
    perspective = {"yfov": round(rng.uniform(0.5, 1.1), 3), "znear": 0.01}
    if near:
        # The main generator is put aside, so that every draw after this block is as without it.
        main_rng, rng = rng, random.Random(seed * 1_000_003 + 17)
        znear = round(rng.uniform(0.1, 0.6), 3)
        perspective["znear"] = znear
        kind = rng.choice(["lambert", "lambert", "mirror", "emitter"])
        if kind == "emitter":
            colour = [round(rng.uniform(0.2, 1.0), 3) for _ in range(3)]
            material = add_material("lambert", (colour, round(rng.uniform(1, 20), 2)))
        else:
            material = add_material(kind)
        shape = quad() if rng.random() < 0.6 else triangle()
        cut = add_mesh("near-cut", shape, material)
        # In camera space: centred a little off the axis at a depth before the plane, up to a
        # few times the width of the view there, so that it may cover all of the image.
        depth = rng.uniform(0.1, 0.9) * znear
        size = depth * rng.uniform(0.2, 2.0)
        node = {"name": "near-cut", "mesh": cut,
                "translation": [round(depth * rng.uniform(-0.4, 0.4), 4), round(depth * rng.uniform(-0.4, 0.4), 4),
                                round(-depth, 4)],
                "rotation": random_rotation(rng), "scale": [round(size, 4)] * 3}
        nodes.append(node)
        camera.setdefault("children", []).append(len(nodes) - 1)
        rng = main_rng
    if rng.random() < 0.5:
        perspective["aspectRatio"] = rng.choice([0.5, 1.0, 2.0])  # the output's aspect wins
    cameras = [{"type": "perspective", "perspective": perspective}]
    if orthographic:
        # Parallel rays through the view the pinhole had at the target: no draw, so the rest of
        # the scene is the seed's as without --orthographic.
        ymag = round(math.dist(eye, target) * math.tan(perspective["yfov"] / 2), 4)
        cameras = [{"type": "orthographic",
                    "orthographic": {"xmag": ymag, "ymag": ymag, "znear": perspective["znear"], "zfar": 1000.0}}]
    scenes = [{"name": "the scene", "nodes": roots}]
    if rng.random() < 0.3:
        # The file's `scene` is the second: a renderer that took the first would see a bright
        # wall in front of the camera.
        wall = add_mesh("decoy-wall", quad(), add_material("lambert", ([1, 1, 1], 50)))
        nodes.append({"name": "decoy-wall", "mesh": wall, "translation": camera["translation"]})
        scenes.insert(0, {"name": "decoy", "nodes": [len(nodes) - 1]})
    if lights:
        extensions_used.append("KHR_lights_punctual")
    document = {
        "asset": {"version": "2.0", "generator": f"wavetrace tools/scenes/random_scene.py {seed}" + (" --wider" if wider else " --wide" * wide) + " --near" * near + " --orthographic" * orthographic},
        "extensionsUsed": sorted(set(extensions_used)),
        "scene": len(scenes) - 1,
        "scenes": scenes,
        "nodes": nodes,
        "meshes": meshes,
        "materials": materials,
        "cameras": cameras,
        "accessors": accessors,
        "bufferViews": views,
        "buffers": [{"byteLength": len(blob),
                     "uri": "data:application/octet-stream;base64," + base64.b64encode(bytes(blob)).decode()}],
    }
    for key, values in (("images", images), ("textures", textures), ("samplers", samplers)):
        if values:
            document[key] = values
    if lights:
        document["extensions"] = {"KHR_lights_punctual": {"lights": lights}}
    if environment:
        # A colour, or an equirectangular map's file beside the scene, its turn and strength.
        document["asset"]["extras"] = {"environment": environment}
    with open(out, "w") as f:
        json.dump(document, f, indent=1)
    width, height = rng.choice([(64, 48), (48, 64), (56, 56), (72, 40)])
    print(width, height, rng.choice([1, 2, 3, 5, 8, 8]))


if __name__ == "__main__":
    main()
