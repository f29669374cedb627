#!/usr/bin/env python3
"""Reads an 8-bit RGB or RGBA PNG (what Chromium's --screenshot writes) with the standard library
only, and prints one JSON object: width, height, the number of distinct colours, the number of
pixels that are not white, and the [r, g, b] of each pixel asked for as X,Y arguments.

Usage: png-pixels.py FILE [X,Y ...]
"""
import json
import struct
import sys
import zlib


def read_png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise SystemExit(f"{path}: not a PNG file")
    offset, idat, header = 8, b"", None
    while offset < len(data):
        length, kind = struct.unpack(">I4s", data[offset:offset + 8])
        body = data[offset + 8:offset + 8 + length]
        offset += 12 + length
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace != 0:
        raise SystemExit(f"{path}: only 8-bit RGB/RGBA non-interlaced PNG is read (got depth {depth}, colour {colour})")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * channels
    rows, previous, at = [], bytearray(stride), 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1:at + 1 + stride])
        at += 1 + stride
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            upper_left = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + up) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 0xFF
            elif kind == 4:
                p = left + up - upper_left
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - upper_left)
                predictor = left if pa <= pb and pa <= pc else (up if pb <= pc else upper_left)
                line[i] = (line[i] + predictor) & 0xFF
        rows.append(line)
        previous = line
    return width, height, channels, rows


def main():
    width, height, channels, rows = read_png(sys.argv[1])
    colours, non_white = set(), 0
    for line in rows:
        for x in range(width):
            pixel = tuple(line[x * channels:x * channels + 3])
            colours.add(pixel)
            if pixel != (255, 255, 255):
                non_white += 1
    pixels = []
    for point in sys.argv[2:]:
        x, y = (int(v) for v in point.split(","))
        pixels.append(list(rows[y][x * channels:x * channels + 3]) if 0 <= x < width and 0 <= y < height else None)
    print(json.dumps({"width": width, "height": height, "distinctColors": len(colours), "nonWhite": non_white,
                      "pixels": pixels}))


main()
