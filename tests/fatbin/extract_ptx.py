#!/usr/bin/env python3
"""Independent reference for test_fatbin: the PTX of an UNCOMPRESSED fatbin
entry, found by walking the container in Python.
Usage: extract_ptx.py FATBIN SM OUT.ptx"""
import struct
import sys


def main():
    data = open(sys.argv[1], "rb").read()
    sm = int(sys.argv[2])
    magic, _ver, hsize, size = struct.unpack_from("<IHHQ", data, 0)
    assert magic == 0xBA55ED50, hex(magic)
    off, end = hsize, hsize + size
    while off < end:
        kind, ehs, psz = struct.unpack_from("<H2xIQ", data, off)
        esm, = struct.unpack_from("<I", data, off + 28)
        flags, = struct.unpack_from("<Q", data, off + 40)
        if kind == 1 and esm == sm:
            assert flags & 0xA000 == 0, "entry is compressed"
            text = data[off + ehs:off + ehs + psz].rstrip(b"\0")
            open(sys.argv[3], "wb").write(text)
            return
        off += ehs + psz
    sys.exit(f"no PTX entry for sm {sm} in {sys.argv[1]}")


if __name__ == "__main__":
    main()
