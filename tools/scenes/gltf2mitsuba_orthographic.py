#!/usr/bin/env python3
"""Runs a glTF-to-Mitsuba converter (the peer's tools/bench/peer/gltf2mitsuba.py or
tools/scenes/gltf2mitsuba_wide.py, both built on the peer's `scene_dict`, which takes
perspective cameras only) on a scene whose camera may be glTF's orthographic one.

The peer's `scene_dict` is given a twin of the file whose orthographic camera is a
perspective one of the same znear, and its sensor then becomes Mitsuba's `orthographic`:
that sensor sees camera-space x in [-1, 1] and y in [-1/aspect, 1/aspect] (aspect = width /
height of the film), so a scale of ymag x aspect across the view makes the image 2 ymag high
and as wide as the output's aspect makes it, as wavetrace renders it. near_clip is znear;
Mitsuba starts its rays on that plane, as wavetrace does.

usage: gltf2mitsuba_orthographic.py CONVERTER.py scene.gltf out.exr [the converter's options]
"""
import importlib.util
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "bench", "peer"))
import gltf2mitsuba as peer  # noqa: E402

original_scene_dict = peer.scene_dict


def scene_dict(path, res, max_depth, spp, twosided=False, *rest, **options):
    with open(path) as f:
        document = json.load(f)
    camera_nodes = [n for n in document.get("nodes", []) if "camera" in n]
    cameras = document.get("cameras", [])
    if not any(c.get("type") == "orthographic" for c in cameras) or not camera_nodes:
        return original_scene_dict(path, res, max_depth, spp, twosided, *rest, **options)
    ymag = {}
    for index, camera in enumerate(cameras):
        if camera.get("type") == "orthographic":
            o = camera["orthographic"]
            ymag[index] = abs(o["ymag"])
            cameras[index] = {"type": "perspective", "perspective": {"yfov": 0.5, "znear": o.get("znear", 0.0)}}
    # Beside the original, so that relative URIs (an environment map) resolve alike.
    twin = os.path.join(os.path.dirname(os.path.abspath(path)), f".orthographic-twin-{os.getpid()}.gltf")
    with open(twin, "w") as f:
        json.dump(document, f)
    try:
        d = original_scene_dict(twin, res, max_depth, spp, twosided, *rest, **options)
    finally:
        os.remove(twin)
    import mitsuba as mi
    sensor = d["sensor"]
    # The peer's converter takes the first camera it walks to; the files checked here have one.
    [scale] = set(ymag.values())
    scale *= res[0] / res[1]
    sensor["type"] = "orthographic"
    sensor.pop("fov", None)
    sensor.pop("fov_axis", None)
    sensor["to_world"] = sensor["to_world"] @ mi.ScalarTransform4f().scale([scale, scale, 1.0])
    return d


peer.scene_dict = scene_dict
converter = sys.argv.pop(1)
spec = importlib.util.spec_from_file_location("converter", converter)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if hasattr(module, "peer"):
    module.peer.scene_dict = scene_dict
else:
    module.scene_dict = scene_dict
module.main()
