#!/usr/bin/env python3
"""driver_coverage.py: docs/driver-coverage.md from the driver's entry list.

For each driver entry point that CUDA 13's runtime asks cuGetProcAddress for
(tools/cudart13-getprocaddress-requests.txt) it says whether Zinc implements
it, using the rows of src/driver/zn_drv_api_list.h:

  implemented    every requested (version, per-thread) resolves to an E row
  partial        some requested version resolves to a UV stub, or the name
                 is in PARTIAL below (implemented, but refuses some inputs
                 with CUDA_ERROR_NOT_SUPPORTED)
  NOT_SUPPORTED  a U row: every version returns CUDA_ERROR_NOT_SUPPORTED

Usage:
  driver_coverage.py ROOT             print the table
  driver_coverage.py ROOT --write     rewrite ROOT/docs/driver-coverage.md
  driver_coverage.py ROOT --check     exit 1 (with a diff) when the
                                      committed table is out of date
The CTest docs/driver_coverage runs --check.
"""
import difflib
import os
import re
import sys

API = "src/driver/zn_drv_api_list.h"
REQUESTS = "tools/cudart13-getprocaddress-requests.txt"
EXPORTS = "tools/libcuda13-exports.txt"
DOC = "docs/driver-coverage.md"
PER_THREAD_FLAG = 2  # CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM

# Implemented names that refuse some inputs: name -> what is refused. Kept by
# hand (the list file cannot say it); a name here must have an E row.
PARTIAL = {
    "cuLinkAddData": "cubin and NVVM (LTO) inputs: Zinc links PTX",
    "cuLinkAddFile": "cubin and NVVM (LTO) inputs: Zinc links PTX",
    "cuArray3DCreate": "sparse block-compressed arrays: not yet (deferred-mapping arrays are backed at once; sparse arrays start with no tile resident, tiles mapped by cuMemMapArrayAsync); the planar (NV12 to YUV444 semi-planar) and packed (YUY2, Y210, Y216, AYUV, Y410, Y416) video formats are supported, 2D only",
    "cuTexObjectCreate": "packed video formats (YUY2, Y210, Y216, AYUV, Y410, Y416): CUDA_ERROR_NOT_SUPPORTED, since CUDA does not define what a fetch of them returns (surface objects read their pixels as raw channels)",
    "cuMemPoolCreate": "shareable handle types: POSIX file descriptors only (Win32 and NVLink fabric handles have no meaning here)",
    "cuGraphAddNode": "external-semaphore nodes: no external semaphores (Vulkan, D3D)",
    "cuModuleGetTexRef": "no module has texture references (nvcc 13 cannot emit .texref; Zinc's PTX parser refuses it): CUDA_ERROR_NOT_FOUND after the handle checks, CUDA's answer for a missing name",
    "cuModuleGetSurfRef": "no module has surface references (nvcc 13 cannot emit .surfref; Zinc's PTX parser refuses it): CUDA_ERROR_NOT_FOUND after the handle checks, CUDA's answer for a missing name",
    "cuLibraryGetUnifiedFunction": "no unified function pointers (device attribute 129 is 0): CUDA_ERROR_NOT_FOUND after the handle checks, as CUDA documents for such a system",
}

# Why a U name is not supported: first matching pattern wins.
REASONS = [
    (r"^cu(GL|GraphicsGL)", "OpenGL interop: no display GPU"),
    (r"^cu(EGL|GraphicsEGL)|EglFrame", "EGL interop: no display GPU"),
    (r"^cu(VDPAU|GraphicsVDPAU)", "VDPAU interop: no display GPU"),
    (r"^cuGraphics", "graphics interop: no display GPU"),
    (r"^cuExternalMemoryGetMappedMipmappedArray$",
     "external memory as CUDA arrays: an external image's layout is its exporter's (tiled, driver-specific), which no CPU driver defines; mapped buffers work"),
    (r"ExternalSemaphore",
     "external semaphores: not implemented (Vulkan/D3D/NvSci semaphores are a GPU kernel driver's sync objects; Zinc has none to signal or wait on)"),
    (r"^cu(Array|MipmappedArray|TexObject|SurfObject)|^cuModuleGet(Tex|Surf)Ref|Texture1D",
     "textures and CUDA arrays: not yet"),
    (r"UserObject", "graph user objects: not yet"),
    (r"GraphMem|MemAllocNode|MemFreeNode", "graph memory nodes: not yet"),
    (r"^cuGraph", "graphs: this node kind or query not yet"),
    (r"GPUDirectRDMA", "GPUDirect RDMA: no NIC path"),
    (r"NvSci", "NvSci: Tegra/DRIVE only"),
    (r"^cuProfilerInitialize$|^cuCtx(Detach|Attach)$", "deprecated API: not supported"),
    (r"^cu(TexRef|SurfRef)|^cuParamSetTexRef$",
     "texture and surface references: no module can have one (nvcc 13 cannot emit .texref/.surfref); texture and surface objects work"),
    (r"^cuCheckpoint", "process checkpointing (cuda-checkpoint): not supported"),
    (r"^cuCoredump", "GPU coredumps: no GPU state to dump"),
    (r"^cuMulticast", "multicast objects: NVLink multi-GPU only"),
    (r"^cuMemGetHandleForAddressRange$", "dma-buf export: no device memory another driver could import"),
    (r"^cuMemBatchDecompressAsync", "the hardware decompression engine: not yet"),
    (r"^cuTensorMapEncodeIm2colWide", "the im2col::w modes are sm_100 features (an sm_90 device has none either)"),
    (r"", "not yet"),
]


def parse_api(text):
    rows = {}  # name -> [(kind, version, per_thread)]
    for m in re.finditer(r"^\s*E\((\w+),\s*(\d+),\s*([01]),\s*\w+\)", text, re.M):
        rows.setdefault(m[1], []).append(("E", int(m[2]), int(m[3])))
    for m in re.finditer(r"^\s*U[VL]\((\w+),\s*(\d+)\)", text, re.M):
        rows.setdefault(m[1], []).append(("UV", int(m[2]), None))
    for m in re.finditer(r"^\s*U\((\w+)\)", text, re.M):
        rows.setdefault(m[1], []).append(("U", 0, None))
    return rows


def parse_symbols(text):
    """Exported symbol -> (API name, kind): E rows' symbols, UL and U rows'
    bare names, UA rows' symbols (zn_drv_api_list.h)."""
    syms = {}
    for m in re.finditer(r"^\s*E\((\w+),\s*\d+,\s*[01],\s*(\w+)\)", text, re.M):
        syms[m[2]] = (m[1], "E")
    for m in re.finditer(r"^\s*UL\((\w+),\s*\d+\)", text, re.M):
        syms[m[1]] = (m[1], "UL")
    for m in re.finditer(r"^\s*U\((\w+)\)", text, re.M):
        syms[m[1]] = (m[1], "U")
    for m in re.finditer(r"^\s*UA\((\w+),\s*(\w+)\)", text, re.M):
        syms[m[2]] = (m[1], "U")
    return syms


def parse_exports(text, where):
    names = [l.strip() for l in text.splitlines() if l.strip() and not l.startswith("#")]
    for n, name in enumerate(names, 1):
        if not re.fullmatch(r"cu\w+", name):
            sys.exit(f"{where}: {name!r} is not a driver function name")
    return names


def parse_requests(text, where):
    reqs = {}  # name -> [(version, per_thread)] in file order
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        f = line.split()
        if len(f) != 3 or not f[1].isdigit() or not f[2].isdigit():
            sys.exit(f"{where}:{n}:1: expected 'name version flags', got {line!r}")
        req = (int(f[1]), 1 if int(f[2]) & PER_THREAD_FLAG else 0)
        if req not in reqs.setdefault(f[0], []):
            reqs[f[0]].append(req)
    return reqs


def resolve(rows, version, per_thread):
    """The row cuGetProcAddress hands out (zn_drv_entry.c's rule)."""
    best = None
    for kind, v, pt in rows:
        if kind == "E" and pt != per_thread:
            continue
        if v <= version and (best is None or v > best[1]):
            best = (kind, v)
    return best


def fmt_req(version, per_thread):
    return f"{version}{' ptds' if per_thread else ''}"


def classify(name, rows, reqs):
    if rows is None:
        sys.exit(f"{API}: {name} (requested by cudart 13) has no E, UV or U row")
    kinds = {k for k, _, _ in rows}
    if kinds == {"U"}:
        why = next(r for p, r in REASONS if re.search(p, name))
        return "NOT_SUPPORTED", why
    if "U" in kinds:
        sys.exit(f"{API}: {name} has both U and E/UV rows")
    stubbed = [fmt_req(v, pt) for v, pt in reqs if resolve(rows, v, pt)[0] != "E"]
    notes = []
    if stubbed:
        notes.append("requested version(s) " + ", ".join(stubbed) + " not implemented")
    if name in PARTIAL:
        notes.append(PARTIAL[name])
    return ("partial", "; ".join(notes)) if notes else ("implemented", "")


TEST_EXTS = (".c", ".cu", ".h", ".def")


def test_texts(root):
    """Every test source under ROOT/tests, by path relative to ROOT."""
    texts = {}
    for dirpath, dirs, names in os.walk(f"{root}/tests"):
        dirs.sort()
        for n in sorted(names):
            if n.endswith(TEST_EXTS):
                path = os.path.join(dirpath, n)
                with open(path, errors="replace") as f:
                    texts[os.path.relpath(path, root)] = f.read()
    return texts


def index_words(texts):
    """word -> indices (in walk order) of the sources that use it; ABI
    variants (`_vN`, `_ptsz`, `_ptds` suffixes) also count for the base
    name. One pass over the sources instead of two regexes per entry point
    per file (which took 15-20 s on a loaded CI machine)."""
    index = {}
    for i, text in enumerate(texts.values()):
        for w in set(re.findall(r"\w+", text)):
            forms = {w}
            base = re.sub(r"_(ptsz|ptds)$", "", w)
            forms.add(base)
            forms.add(re.sub(r"_v\d+$", "", base))
            for f in forms:
                index.setdefault(f, set()).add(i)
    return list(texts), index


def tested_by(name, words):
    """The test sources that call `name` (or an ABI variant of it), or the
    runtime function of the same name (cuX -> cudaX), which reaches it."""
    paths, index = words
    hits = sorted(index.get(name, set()) | index.get("cuda" + name[2:], set()))
    if not hits:
        return "-"
    more = f" +{len(hits) - 1}" if len(hits) > 1 else ""
    return f"`{paths[hits[0]]}`{more}"


def generate(root):
    with open(f"{root}/{API}") as f:
        api = parse_api(f.read())
    with open(f"{root}/{REQUESTS}") as f:
        reqs = parse_requests(f.read(), REQUESTS)
    for name in PARTIAL:
        if not any(k == "E" for k, _, _ in api.get(name, [])):
            sys.exit(f"{sys.argv[0]}: PARTIAL names {name}, which has no E row in {API}")
    table = [(n, *classify(n, api.get(n), reqs[n])) for n in sorted(reqs)]
    words = index_words(test_texts(root))
    tests = {n: tested_by(n, words) for n in reqs}
    ntested = sum(1 for n in reqs if tests[n] != "-")
    count = {s: sum(1 for _, st, _ in table if st == s)
             for s in ("implemented", "partial", "NOT_SUPPORTED")}
    with open(f"{root}/{API}") as f:
        syms = parse_symbols(f.read())
    with open(f"{root}/{EXPORTS}") as f:
        exports = parse_exports(f.read(), EXPORTS)
    # every name NVIDIA exports must have a row: implemented or a stub
    by_name = {}
    for sym in exports:
        if sym not in syms:
            sys.exit(f"{API}: {sym} (exported by NVIDIA's libcuda.so.1, {EXPORTS}) has no "
                     "E, UL, U or UA row")
        name, kind = syms[sym]
        by_name.setdefault(name, []).append((sym, kind))
    for name, r in api.items():
        if any(k == "E" for k, _, _ in r):
            by_name.setdefault(name, [])
    narrow = sorted(n for n, v in by_name.items() if any(k == "UL" for _, k in v))
    extra = []
    for name in sorted(n for n in by_name if n not in reqs):
        kinds = {k for k, _, _ in api.get(name, [])}
        if "E" in kinds:
            extra.append((name, "implemented", ""))
        else:
            extra.append((name, "NOT_SUPPORTED", next(r for p, r in REASONS if re.search(p, name))))
    nextra = {s: sum(1 for _, st, _ in extra if st == s) for s in ("implemented", "NOT_SUPPORTED")}
    out = [
        "# Driver API coverage",
        "",
        "<!-- Generated by tools/driver_coverage.py from src/driver/zn_drv_api_list.h",
        "     and tools/cudart13-getprocaddress-requests.txt; do not edit. Regenerate with",
        "     `python3 tools/driver_coverage.py . --write`; the CTest docs/driver_coverage",
        "     fails when this file is out of date. -->",
        "",
        f"CUDA 13's runtime asks `cuGetProcAddress` for {len(table)} driver entry points",
        "(at the versions in the second column; `ptds` is the per-thread default",
        "stream variant). Of these Zinc implements",
        f"**{count['implemented']}** fully, **{count['partial']}** partially and "
        f"returns `CUDA_ERROR_NOT_SUPPORTED` (logged at `ZINC_LOG=1`) for "
        f"**{count['NOT_SUPPORTED']}**: "
        f"{count['implemented'] + count['partial']} of {len(table)} are usable.",
        "",
        "- **implemented**: every requested version resolves to an implementation.",
        "- **partial**: implemented, but a requested version resolves to a",
        "  `CUDA_ERROR_NOT_SUPPORTED` stub, or some inputs are refused with it (why).",
        "- **NOT_SUPPORTED**: no version is implemented (why).",
        "- **tested by**: the first test source (of how many more) under `tests/`",
        "  that calls the entry point, an ABI variant of it, or the runtime",
        "  function of the same name (`cuX` -> `cudaX`, which reaches it); "
        f"{ntested} of {len(table)}",
        "  are named by a test. Tests that reach an entry point only through a",
        "  differently named runtime call (`cudaMalloc` -> `cuMemAlloc`) are not",
        "  counted here.",
        "",
        "| entry point | versions requested | status | why | tested by |",
        "|---|---|---|---|---|",
    ]
    for name, status, why in table:
        versions = ", ".join(fmt_req(v, pt) for v, pt in reqs[name])
        out.append(f"| `{name}` | {versions} | {status} | {why} | {tests[name]} |")
    out += [
        "",
        "## Exports beyond the runtime's requests",
        "",
        f"NVIDIA's libcuda.so.1 exports {len(exports)} function symbols (`{EXPORTS}`, the",
        "CUDA 13 toolkit's link stub); Zinc's exports every one of them (the CTest",
        "`driver/exports` checks it), so a program linked with `-lcuda`, or a loader",
        "that looks every name up, finds what it expects. Besides the ABI forms of",
        f"the names above, these are {len(extra)} names that cudart 13 never asks for",
        "(older calls, driver-API-only calls, newer features): Zinc implements",
        f"**{nextra['implemented']}** and returns `CUDA_ERROR_NOT_SUPPORTED` for "
        f"**{nextra['NOT_SUPPORTED']}**.",
        f"The CUDA 3.1 forms of {len(narrow)} names (32-bit device pointers and sizes,",
        "exported under the bare name, such as `cuMemAlloc` beside `cuMemAlloc_v2`)",
        "return `CUDA_ERROR_NOT_SUPPORTED`: " + ", ".join(f"`{n}`" for n in narrow) + ".",
        "",
        "| entry point | status | why | tested by |",
        "|---|---|---|---|",
    ]
    for name, status, why in extra:
        out.append(f"| `{name}` | {status} | {why} | {tested_by(name, words)} |")
    out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] not in ("--write", "--check")):
        sys.exit(f"usage: {sys.argv[0]} ROOT [--write|--check]")
    root = sys.argv[1]
    text = generate(root)
    mode = sys.argv[2] if len(sys.argv) == 3 else None
    if mode is None:
        sys.stdout.write(text)
    elif mode == "--write":
        with open(f"{root}/{DOC}", "w") as f:
            f.write(text)
    else:
        try:
            with open(f"{root}/{DOC}") as f:
                old = f.read()
        except FileNotFoundError:
            old = ""
        if old != text:
            sys.stdout.writelines(difflib.unified_diff(
                old.splitlines(True), text.splitlines(True), DOC + " (committed)",
                DOC + " (from the list)"))
            print(f"{DOC} is out of date: run python3 tools/driver_coverage.py . --write")
            return 1
        print(f"{DOC}: up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
