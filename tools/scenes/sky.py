#!/usr/bin/env python3
"""Writes a synthetic equirectangular sky as Radiance HDR (uncompressed RGBE scanlines):
a blue gradient above the horizon, brown ground below and a small sun 40 degrees up, the
environment map of the benchmarks. Usage: sky.py OUT.hdr [WIDTH]"""
import math
import struct
import sys


def rgbe(r, g, b):
    v = max(r, g, b)
    if v < 1e-32:
        return b"\0\0\0\0"
    m, e = math.frexp(v)
    scale = m * 256.0 / v
    return struct.pack("BBBB", int(r * scale), int(g * scale), int(b * scale), e + 128)


def main():
    out = sys.argv[1]
    width = int(sys.argv[2]) if len(sys.argv) > 2 else 1024
    height = width // 2
    sun_theta, sun_phi, sun_radius = math.radians(50.0), math.radians(120.0), math.radians(2.0)
    sun_dir = (math.sin(sun_theta) * math.sin(sun_phi), math.cos(sun_theta), -math.sin(sun_theta) * math.cos(sun_phi))
    rows = []
    for y in range(height):
        theta = (y + 0.5) / height * math.pi
        row = bytearray()
        for x in range(width):
            phi = (x + 0.5) / width * 2.0 * math.pi
            d = (math.sin(theta) * math.sin(phi), math.cos(theta), -math.sin(theta) * math.cos(phi))
            if d[1] > 0.0:
                t = d[1]
                c = (0.6 - 0.4 * t, 0.75 - 0.3 * t, 1.0)
            else:
                c = (0.25, 0.2, 0.15)
            cos_sun = sum(a * b for a, b in zip(d, sun_dir))
            if cos_sun > math.cos(sun_radius):
                c = (5000.0, 4500.0, 4000.0)
            row += rgbe(*c)
        rows.append(bytes(row))
    with open(out, "wb") as f:
        f.write(b"#?RADIANCE\nFORMAT=32-bit_rle_rgbe\n\n")
        f.write(f"-Y {height} +X {width}\n".encode())
        for row in rows:
            f.write(row)


if __name__ == "__main__":
    main()
