#!/usr/bin/env python3
"""A Mitsuba 3 reference of a glTF scene beyond REFERENCE.md's subset: what
tools/scenes/random_scene.py --wide writes. On top of the peer's converter
(tools/bench/peer/gltf2mitsuba.py, whose loader and transforms it reuses) it takes
  * base-colour textures on Lambertian materials and emissive textures (times their factors),
    decoded to linear light once and looked up with the glTF sampler's filter (nearest or
    bilinear; no mipmaps, which Mitsuba does not have) and wrap mode (one for both axes). Mitsuba
    samples a textured emitter by its texture and maps the point back through the mesh's
    texture coordinates, so an emitter's must cover the unit square once: others are refused
    (with coordinates that repeat, its light sampling came out 1.4-2.2x too dark);
  * NORMAL as vertex normals (the peer's converter shades every triangle flat);
  * KHR_lights_punctual point, spot and directional lights (radiant intensity = colour x
    intensity, irradiance = colour x intensity, as wavetrace reads them; a spot's falloff between
    its cones wavetrace's, the specification's recommended one, as a texture over Mitsuba's cone);
  * `asset.extras.environment`: a constant environment radiance, or an equirectangular map's file
    with its turn about +Y (degrees) and strength (handed to Mitsuba with every texel repeated 4 x 4,
    so that its interpolation shows wavetrace's nearest texels);
  * what random_scene.py --wider adds: alpha (a `mask` BSDF whose opacity is the base colour's
    alpha for BLEND, and 0 or 1 by the cutoff for MASK; nearest textures only, where both mean
    the texel's alpha), KHR_texture_transform on base-colour textures (Mitsuba's `to_uv`), and
    KHR_materials_volume's absorption inside a smooth dielectric (a homogeneous medium of albedo
    0 and extinction -ln(attenuationColor) / attenuationDistance). Scenes with either render with
    `volpath`, whose shadow rays pass through `mask` surfaces and whose depth does not count the
    passes, as wavetrace's holes; `path` would treat both as surfaces.
usage: gltf2mitsuba_wide.py scene.gltf out.exr --spp N --res W H --max-depth D [--variant V] [--twosided] [--seed-base S]
"""
import argparse
import base64
import math
import os
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench", "peer"))
import gltf2mitsuba as peer  # noqa: E402

WRAP = {10497: "repeat", 33648: "mirror", 33071: "clamp"}


class Textures:
    """glTF textures as linear-light EXR files Mitsuba's `bitmap` reads, each scaled by a factor."""

    def __init__(self, g, base, folder):
        self.g, self.base, self.folder, self.count = g, base, folder, 0

    def bitmap(self, index, factor, transform=None, alpha=None):
        """Texture `index` times `factor`; `transform` a KHR_texture_transform; `alpha` a function
        of the texels' alpha times factor[3] that gives the texture instead (an opacity)."""
        import mitsuba as mi
        texture = self.g["textures"][index]
        image = self.g["images"][texture["source"]]
        uri = image["uri"]
        path = os.path.join(self.folder, f"image{self.count}.png")
        if uri.startswith("data:"):
            with open(path, "wb") as f:
                f.write(base64.b64decode(uri.split(",", 1)[1]))
        else:
            path = os.path.join(self.base, uri)
        # sRGB to linear light by Mitsuba itself, then the factor; the EXR is read as is.
        linear = mi.Bitmap(path).convert(mi.Bitmap.PixelFormat.RGBA, mi.Struct.Type.Float32, srgb_gamma=False)
        pixels = np.array(linear, np.float32)
        if alpha is None:
            pixels = pixels[:, :, :3] * np.asarray(factor, np.float32)[:3]
        else:
            opacity = alpha(pixels[:, :, 3] * (factor[3] if len(factor) > 3 else 1.0))
            pixels = np.repeat(opacity[:, :, None], 3, axis=2).astype(np.float32)
        out = os.path.join(self.folder, f"texture{self.count}.exr")
        self.count += 1
        mi.Bitmap(pixels).write(out)
        sampler = self.g.get("samplers", [])[texture["sampler"]] if "sampler" in texture else {}
        wrap_s, wrap_t = sampler.get("wrapS", 10497), sampler.get("wrapT", 10497)
        if wrap_s != wrap_t:
            sys.exit(f"texture {index}: wrap modes {wrap_s} and {wrap_t} differ; Mitsuba has one for both axes")
        nearest = sampler.get("magFilter") == 9728
        if (sampler.get("minFilter") == 9728) != nearest or sampler.get("minFilter") not in (9728, 9729):
            sys.exit(f"texture {index}: only NEAREST or LINEAR filters without mipmaps have a Mitsuba twin")
        if alpha is not None and not nearest:
            sys.exit(f"texture {index}: alpha only from NEAREST textures, where both renderers read one texel")
        texture = {"type": "bitmap", "filename": out, "raw": True, "filter_type": "nearest" if nearest else "bilinear",
                   "wrap_mode": WRAP[wrap_s]}
        if transform:
            texture["to_uv"] = uv_transform(transform)
        return texture


def uv_transform(t):
    """KHR_texture_transform's translation x rotation x scale, as the extension composes them."""
    import mitsuba as mi
    if "texCoord" in t:
        sys.exit("a texture transform's texCoord has no twin here")
    (ox, oy), r, (sx, sy) = t.get("offset", [0, 0]), t.get("rotation", 0.0), t.get("scale", [1, 1])
    c, s = math.cos(r), math.sin(r)
    matrix = np.array([[1, 0, ox], [0, 1, oy], [0, 0, 1]]) @ np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]]) \
        @ np.array([[sx, 0, 0], [0, sy, 0], [0, 0, 1]])
    return mi.ScalarTransform3f(mi.ScalarMatrix3f(matrix))


def look_along(position, direction):
    import mitsuba as mi
    up = [0, 1, 0] if abs(direction[1]) < 0.9 else [1, 0, 0]
    return mi.ScalarTransform4f().look_at(origin=list(position), target=list(position + direction), up=up)


def punctual(light, m, folder, name):
    position = m[:3, 3]
    direction = -m[:3, 2] / np.linalg.norm(m[:3, 2])
    value = {"type": "rgb", "value": (np.asarray(light.get("color", [1, 1, 1])) * light.get("intensity", 1.0)).tolist()}
    if "range" in light:
        sys.exit(f"light {light.get('name')}: a range has no Mitsuba twin")
    if light["type"] == "point":
        return {"type": "point", "position": position.tolist(), "intensity": value}
    if light["type"] == "directional":
        return {"type": "directional", "direction": direction.tolist(), "irradiance": value}
    spot = light.get("spot", {})
    outer = spot.get("outerConeAngle", math.pi / 4)
    inner = spot.get("innerConeAngle", 0.0)
    # Mitsuba's own edge is hard (a ramp of a millionth of the angle); the falloff is wavetrace's
    # in a texture projected over the cone.
    return {"type": "spot", "to_world": look_along(position, direction), "intensity": value,
            "cutoff_angle": math.degrees(outer), "beam_width": math.degrees(outer) * (1 - 1e-6),
            "texture": spot_falloff(inner, outer, os.path.join(folder, f"spot-{name}.exr"))}


def spot_falloff(inner, outer, path, size=1024):
    """KHR_lights_punctual's recommended falloff as wavetrace renders it (lights.glsl: the square
    of a ramp over the cosines, at least 1e-3 wide), as Mitsuba's spot projects a texture: texel
    (u, v) lies in local direction ((2u - 1) tan(outer), (2v - 1) tan(outer), 1)."""
    import mitsuba as mi
    t = (np.arange(size) + 0.5) / size * 2 - 1
    x, y = np.meshgrid(t * math.tan(outer), t * math.tan(outer))
    cos_theta = 1 / np.sqrt(1 + x * x + y * y)
    ramp = np.clip((cos_theta - math.cos(outer)) / max(math.cos(inner) - math.cos(outer), 1e-3), 0, 1)
    mi.Bitmap(np.repeat((ramp * ramp)[:, :, None], 3, axis=2).astype(np.float32)).write(path)
    return {"type": "bitmap", "filename": path, "raw": True, "filter_type": "bilinear", "wrap_mode": "clamp"}


def scene_dict(path, res, max_depth, spp, twosided=False):
    import mitsuba as mi
    g, acc = peer.load_gltf(path)
    d = peer.scene_dict(path, res, max_depth, spp, twosided)
    nodes = []
    for r in g["scenes"][g.get("scene", 0)]["nodes"]:
        peer.walk(g, r, np.eye(4), nodes)
    folder = tempfile.mkdtemp()
    textures = Textures(g, os.path.dirname(os.path.abspath(path)), folder)
    lights = g.get("extensions", {}).get("KHR_lights_punctual", {}).get("lights", [])
    needs_volpath = False
    for ni, (n, m) in enumerate(nodes):
        light = n.get("extensions", {}).get("KHR_lights_punctual")
        if light is not None:
            d[f"light{ni}"] = punctual(lights[light["light"]], m, folder, ni)
        if "mesh" not in n:
            continue
        for pi, p in enumerate(g["meshes"][n["mesh"]]["primitives"]):
            key = f"n{ni}_p{pi}"
            if key not in d:
                continue
            shape = d[key]
            material = g["materials"][p["material"]] if "material" in p else {}
            attributes = p["attributes"]
            pbr = material.get("pbrMetallicRoughness", {})
            inner = shape["bsdf"]["bsdf"] if shape["bsdf"]["type"] == "twosided" else shape["bsdf"]
            if "baseColorTexture" in pbr:
                if inner["type"] != "diffuse":
                    sys.exit(f"material {material.get('name')}: a base-colour texture only on Lambertian materials")
                reference = pbr["baseColorTexture"]
                transform = reference.get("extensions", {}).get("KHR_texture_transform")
                factor = pbr.get("baseColorFactor", [1, 1, 1, 1])
                inner["reflectance"] = textures.bitmap(reference["index"], factor, transform)
                mode = material.get("alphaMode", "OPAQUE")
                if mode != "OPAQUE":
                    cutoff = material.get("alphaCutoff", 0.5)
                    # wavetrace's MASK is a hole where alpha < cutoff; BLEND one with probability 1 - alpha.
                    opacity = (lambda a: (a >= cutoff).astype(np.float32)) if mode == "MASK" else (lambda a: a)
                    shape["bsdf"] = {"type": "mask", "opacity": textures.bitmap(reference["index"], factor, transform,
                                                                                 opacity), "bsdf": shape["bsdf"]}
                    needs_volpath = True
            elif material.get("alphaMode", "OPAQUE") != "OPAQUE":
                sys.exit(f"material {material.get('name')}: alpha only from a base-colour texture here")
            volume = material.get("extensions", {}).get("KHR_materials_volume")
            if volume and volume.get("thicknessFactor", 0) > 0 and "attenuationDistance" in volume:
                if inner["type"] != "dielectric":
                    sys.exit(f"material {material.get('name')}: a volume only behind a smooth dielectric here")
                remaining = np.clip(np.asarray(volume.get("attenuationColor", [1, 1, 1]), np.float64), 1e-6, 1)
                sigma_t = -np.log(remaining) / volume["attenuationDistance"]
                # An RGB value is a reflectance in [0, 1] to Mitsuba: the largest channel goes to `scale`.
                scale = max(sigma_t.max(), 1e-12)
                shape["interior"] = {"type": "homogeneous", "albedo": 0.0, "scale": float(scale),
                                     "sigma_t": {"type": "rgb", "value": (sigma_t / scale).tolist()}}
                needs_volpath = True
            if "emissiveTexture" in material:
                uv = acc(attributes["TEXCOORD_0"])
                if uv.min() < 0 or uv.max() > 1:
                    sys.exit(f"material {material.get('name')}: an emissive texture's coordinates leave [0, 1]^2, "
                             "where Mitsuba cannot sample the emitter")
                strength = material.get("extensions", {}).get("KHR_materials_emissive_strength", {}).get(
                    "emissiveStrength", 1.0)
                factor = np.asarray(material.get("emissiveFactor", [0, 0, 0])) * strength
                shape["emitter"] = {"type": "area", "radiance": textures.bitmap(material["emissiveTexture"]["index"],
                                                                                factor)}
            uses_uv = "baseColorTexture" in pbr or "emissiveTexture" in material
            if uses_uv or "NORMAL" in attributes:
                shape["filename"] = rewrite_ply(shape["filename"], acc, p, m, uses_uv)
                shape["face_normals"] = "NORMAL" not in attributes
    if needs_volpath:
        d["integrator"]["type"] = "volpath"
    environment = g.get("asset", {}).get("extras", {}).get("environment")
    if isinstance(environment, dict):
        # Mitsuba's envmap takes u = atan2(x, -z) / 2 pi and v = acos(y) / pi as wavetrace does
        # (`environment.glsl`), and its right-handed turn about +Y is wavetrace's --env-rotation.
        # Both interpolate bilinearly, but Mitsuba 3.9.1 puts its rows at v = j / (H - 1), from
        # pole to pole, where wavetrace puts them at texel centres, (j + 0.5) / H. Mitsuba gets
        # wavetrace's interpolation sampled 5 times finer on its own lattice (columns at
        # (i + 0.5) / 5W, which an odd factor puts on every wavetrace centre).
        sky = np.array(mi.Bitmap(os.path.join(os.path.dirname(os.path.abspath(path)), environment["map"])))
        resampled = os.path.join(folder, "sky-resampled.exr")
        mi.Bitmap(resample_for_mitsuba(sky[:, :, :3], 5).astype(np.float32)).write(resampled)
        d["environment"] = {"type": "envmap", "scale": environment["strength"], "filename": resampled,
                            "to_world": mi.ScalarTransform4f().rotate([0, 1, 0], environment["rotation"])}
    elif environment:
        d["environment"] = {"type": "constant", "radiance": {"type": "rgb", "value": environment}}
    return d


def resample_for_mitsuba(sky, factor):
    """wavetrace's interpolation of an H x W x 3 map (environment.glsl: between texel centres, u
    wrapping, v clamped) at Mitsuba's lattice of a map `factor` times larger."""
    height, width = sky.shape[:2]
    u = (np.arange(width * factor) + 0.5) / (width * factor)
    v = np.arange(height * factor) / (height * factor - 1)
    px, py = u * width - 0.5, v * height - 0.5
    cx, cy = np.floor(px), np.floor(py)
    tx, ty = (px - cx)[None, :, None], (py - cy)[:, None, None]
    xa, xb = cx.astype(int) % width, (cx.astype(int) + 1) % width
    ya, yb = np.clip(cy.astype(int), 0, height - 1), np.clip(cy.astype(int) + 1, 0, height - 1)
    upper = sky[ya][:, xa] * (1 - tx) + sky[ya][:, xb] * tx
    lower = sky[yb][:, xa] * (1 - tx) + sky[yb][:, xb] * tx
    return upper * (1 - ty) + lower * ty


def rewrite_ply(filename, acc, p, m, uses_uv):
    """The peer's PLY of primitive p again, with its texture coordinates and world normals."""
    import mitsuba as mi
    pos = acc(p["attributes"]["POSITION"]).astype(np.float64)
    idx = acc(p["indices"]).reshape(-1).astype(np.uint32) if "indices" in p else np.arange(len(pos), dtype=np.uint32)
    if np.linalg.det(m[:3, :3]) < 0:
        idx = idx.reshape(-1, 3)[:, ::-1].reshape(-1)
    world = (np.c_[pos, np.ones(len(pos))] @ m.T)[:, :3]
    normals = None
    if "NORMAL" in p["attributes"]:
        normals = acc(p["attributes"]["NORMAL"]).astype(np.float64) @ np.linalg.inv(m[:3, :3])
        normals /= np.linalg.norm(normals, axis=1, keepdims=True)
    uv = acc(p["attributes"]["TEXCOORD_0"]).astype(np.float64) if uses_uv else None
    mesh = mi.Mesh("mesh", len(world), len(idx) // 3, has_vertex_normals=normals is not None,
                   has_vertex_texcoords=uv is not None)
    params = mi.traverse(mesh)
    params["vertex_positions"] = np.asarray(world, np.float32).reshape(-1)
    params["faces"] = np.asarray(idx, np.uint32).reshape(-1)
    if normals is not None:
        params["vertex_normals"] = np.asarray(normals, np.float32).reshape(-1)
    if uv is not None:
        params["vertex_texcoords"] = np.asarray(uv, np.float32).reshape(-1)
    params.update()
    mesh.write_ply(filename)
    return filename


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("scene")
    ap.add_argument("out")
    ap.add_argument("--spp", type=int, default=1024)
    ap.add_argument("--res", type=int, nargs=2, default=[256, 256])
    ap.add_argument("--max-depth", type=int, default=8)
    ap.add_argument("--variant", default="scalar_rgb")
    ap.add_argument("--twosided", action="store_true")
    ap.add_argument("--seed-base", type=int, default=1000)
    a = ap.parse_args()
    import mitsuba as mi
    mi.set_variant(a.variant)
    scene = mi.load_dict(scene_dict(a.scene, a.res, a.max_depth, a.spp, a.twosided))
    mi.Bitmap(np.array(mi.render(scene, spp=a.spp, seed=a.seed_base), np.float32)).write(a.out)


if __name__ == "__main__":
    main()
