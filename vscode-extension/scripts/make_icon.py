#!/usr/bin/env python3
"""Draws the extension icon (images/icon.png, 128x128) with the standard library only.

A rounded tile with a small workflow graph: a trigger feeding an agent that branches
to an approval and an output. Shapes are sampled 4x4 per pixel for smooth edges.
Run: python3 scripts/make_icon.py  (writes images/icon.png next to package.json)
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

SIZE = 128
SAMPLES = 4
BACKGROUND = (18, 52, 59)
EDGE = (125, 211, 192)
NODES = [  # (x, y, radius, color)
    (30, 36, 11, (255, 196, 61)),   # trigger
    (64, 64, 14, (125, 211, 192)),  # agent
    (98, 36, 10, (240, 240, 240)),  # approval
    (98, 94, 10, (240, 240, 240)),  # output
]
EDGES = [(0, 1), (1, 2), (1, 3)]


def inside_tile(x: float, y: float) -> bool:
    radius, lo, hi = 24.0, 4.0, SIZE - 4.0
    cx = min(max(x, lo + radius), hi - radius)
    cy = min(max(y, lo + radius), hi - radius)
    return lo <= x <= hi and lo <= y <= hi and (x - cx) ** 2 + (y - cy) ** 2 <= radius ** 2


def near_segment(x: float, y: float, a: tuple, b: tuple, width: float) -> bool:
    ax, ay, bx, by = a[0], a[1], b[0], b[1]
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(x - (ax + t * dx), y - (ay + t * dy)) <= width / 2


def color_at(x: float, y: float) -> tuple[int, int, int, int] | None:
    if not inside_tile(x, y):
        return None
    for nx, ny, r, color in NODES:
        if math.hypot(x - nx, y - ny) <= r:
            return (*color, 255)
    for i, j in EDGES:
        if near_segment(x, y, NODES[i], NODES[j], 5.0):
            return (*EDGE, 255)
    return (*BACKGROUND, 255)


def render() -> bytes:
    rows = []
    for py in range(SIZE):
        row = bytearray([0])  # filter: none
        for px in range(SIZE):
            acc = [0, 0, 0, 0]
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    c = color_at(px + (sx + 0.5) / SAMPLES, py + (sy + 0.5) / SAMPLES)
                    if c:
                        for k in range(3):
                            acc[k] += c[k] * c[3]
                        acc[3] += c[3]
            n = SAMPLES * SAMPLES
            alpha = acc[3] / n
            rgb = [round(acc[k] / acc[3]) if acc[3] else 0 for k in range(3)]
            row += bytes([*rgb, round(alpha)])
        rows.append(bytes(row))
    return b"".join(rows)


def png(width: int, height: int, raw: bytes) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


if __name__ == "__main__":
    out = Path(__file__).resolve().parent.parent / "images" / "icon.png"
    out.parent.mkdir(exist_ok=True)
    out.write_bytes(png(SIZE, SIZE, render()))
    print(f"wrote {out}")
