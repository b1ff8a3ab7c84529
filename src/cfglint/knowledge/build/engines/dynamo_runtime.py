"""Static scan of Dynamo's compiled runtime library (``dynamo/_core.abi3.so`` in the
``ai-dynamo-runtime`` wheel), standard library only. Nothing is loaded or executed.

One fact is read:
  * parsers: the tool-call and reasoning parser registries behind dynamo._core.
    get_tool_parser_names() / get_reasoning_parser_names().  Using the ELF symbol table, the
    functions that build the registries are located (the HashMap-building closure whose inserted
    value type is ToolCallConfig / the reasoning parser map, and the unified-family name list),
    and the string slices they reference are decoded from x86-64 code: a RIP-relative `lea` of a
    .rodata address followed by the slice length as an immediate.  This is a heuristic: see
    REPORT.md for what it cannot see.
"""
from __future__ import annotations

import re
import struct

SLICE_NAME = re.compile(rb"^[a-z0-9][a-z0-9_.\-]*$")


class Elf:
    def __init__(self, data):
        self.data = data
        if data[:4] != b"\x7fELF" or data[4] != 2:
            raise ValueError("not an ELF64 file")
        e_shoff, = struct.unpack_from("<Q", data, 0x28)
        e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        secs = [struct.unpack_from("<IIQQQQIIQQ", data, e_shoff + i * e_shentsize) for i in range(e_shnum)]
        stro = secs[e_shstrndx][4]
        self.sections = {}
        for s in secs:
            nm = data[stro + s[0]:data.index(b"\0", stro + s[0])].decode("latin1")
            self.sections[nm] = {"type": s[1], "addr": s[3], "off": s[4], "size": s[5]}
        self._syms = None
        self._funcs = None

    def va2off(self, va):
        for s in self.sections.values():
            if s["addr"] and s["addr"] <= va < s["addr"] + s["size"] and s["type"] != 8:
                return s["off"] + va - s["addr"]
        return None

    def in_section(self, va, name):
        s = self.sections.get(name)
        return s is not None and s["addr"] <= va < s["addr"] + s["size"]

    def symbols(self):
        if self._syms is None:
            self._syms = []
            sym = self.sections.get(".symtab")
            strt = self.sections.get(".strtab")
            if sym and strt:
                d = self.data
                so = strt["off"]
                for i in range(sym["size"] // 24):
                    st_name, st_info, st_other, st_shndx, st_value, st_size = struct.unpack_from(
                        "<IBBHQQ", d, sym["off"] + i * 24)
                    if (st_info & 0xF) == 2 and st_value and st_size:
                        end = d.index(b"\0", so + st_name)
                        self._syms.append((st_value, st_size, d[so + st_name:end].decode("latin1")))
            self._syms.sort()
        return self._syms

    def func_by_addr(self):
        if self._funcs is None:
            self._funcs = {}
            for v, s, n in self.symbols():
                self._funcs.setdefault(v, (s, n))
        return self._funcs

    def code(self, va, size):
        off = self.va2off(va)
        return self.data[off:off + size] if off is not None else b""


LEA = re.compile(rb"[\x48\x4c]\x8d([\x05\x0d\x15\x1d\x25\x2d\x35\x3d])(....)", re.S)
CALL = re.compile(rb"\xe8(....)", re.S)

_MODRM_1B = set(list(range(0x00, 0x04)) + list(range(0x08, 0x0C)) + list(range(0x10, 0x14)) +
                list(range(0x18, 0x1C)) + list(range(0x20, 0x24)) + list(range(0x28, 0x2C)) +
                list(range(0x30, 0x34)) + list(range(0x38, 0x3C)) + [0x63, 0x84, 0x85, 0x86, 0x87,
                0x88, 0x89, 0x8A, 0x8B, 0x8D, 0xD1, 0xD3, 0xFE])
_STOP = set([0xC3, 0xE8, 0xE9, 0xEB, 0xCC, 0xFF]) | set(range(0x70, 0x80))


def _modrm_len(code, i, addr32_disp=False):
    """Length of ModRM + SIB + displacement starting at code[i]; also whether it is RIP-relative."""
    modrm = code[i]
    mod, rm = modrm >> 6, modrm & 7
    n = 1
    rip = False
    if mod != 3 and rm == 4:
        n += 1
        base = code[i + 1] & 7
        if mod == 0 and base == 5:
            n += 4
    if mod == 1:
        n += 1
    elif mod == 2:
        n += 4
    elif mod == 0 and rm == 5:
        n += 4
        rip = True
    return n, rip


def decode(code, i):
    """Minimal x86-64 length decoder for the instructions seen around slice construction.
    Returns (length, kind, value): kind 'lea_rip' (value = disp, end offset), 'imm' (value),
    'stop' (call/jump/ret), 'other', or None when the byte is not understood."""
    start = i
    n = len(code)
    rex = 0
    while i < n and code[i] in (0x66, 0xF2, 0xF3, 0x2E, 0x3E, 0x64, 0x65):
        i += 1
    if i < n and 0x40 <= code[i] <= 0x4F:
        rex = code[i]
        i += 1
    if i >= n:
        return None
    op = code[i]
    i += 1
    try:
        if op in _STOP:
            return (i - start, "stop", None)
        if op == 0x8D:
            ml, rip = _modrm_len(code, i)
            if rip:
                disp, = struct.unpack_from("<i", code, i + 1)
                return (i + ml - start, "lea_rip", (disp, i + ml))
            return (i + ml - start, "other", None)
        if op in _MODRM_1B:
            ml, _ = _modrm_len(code, i)
            return (i + ml - start, "other", None)
        if 0xB8 <= op <= 0xBF:
            if rex & 8:
                v, = struct.unpack_from("<Q", code, i)
                return (i + 8 - start, "imm", v)
            v, = struct.unpack_from("<I", code, i)
            return (i + 4 - start, "imm", v)
        if 0xB0 <= op <= 0xB7:
            return (i + 1 - start, "other", None)
        if op == 0xC7:
            ml, _ = _modrm_len(code, i)
            v, = struct.unpack_from("<I", code, i + ml)
            return (i + ml + 4 - start, "imm", v)
        if op == 0xC6 or op == 0x80 or op == 0x83 or op == 0xC1:
            ml, _ = _modrm_len(code, i)
            return (i + ml + 1 - start, "other", None)
        if op == 0x81 or op == 0x69:
            ml, _ = _modrm_len(code, i)
            return (i + ml + 4 - start, "other", None)
        if op == 0x6A:
            return (i + 1 - start, "imm", code[i])
        if op == 0x68:
            v, = struct.unpack_from("<I", code, i)
            return (i + 4 - start, "imm", v)
        if 0x50 <= op <= 0x5F or op in (0x90, 0x98, 0x99, 0xC9):
            return (i - start, "other", None)
        if op in (0x04, 0x0C, 0x24, 0x2C, 0x34, 0x3C, 0xA8):
            return (i + 1 - start, "other", None)
        if op in (0x05, 0x0D, 0x25, 0x2D, 0x35, 0x3D, 0xA9):
            return (i + 4 - start, "other", None)
        if op == 0xF6 or op == 0xF7:
            ml, _ = _modrm_len(code, i)
            reg = (code[i] >> 3) & 7
            extra = (1 if op == 0xF6 else 4) if reg in (0, 1) else 0
            return (i + ml + extra - start, "other", None)
        if op == 0x0F:
            op2 = code[i]
            i += 1
            if 0x80 <= op2 <= 0x8F:
                return (i + 4 - start, "stop", None)
            if op2 in (0x05, 0x0B, 0x31, 0xA2):
                return (i - start, "other", None)
            if op2 in (0x3A,):
                i += 1
                ml, _ = _modrm_len(code, i)
                return (i + ml + 1 - start, "other", None)
            if op2 in (0x38,):
                i += 1
            if op2 in (0x70, 0x71, 0x72, 0x73, 0xBA, 0xA4, 0xAC, 0xC2, 0xC4, 0xC5, 0xC6):
                ml, _ = _modrm_len(code, i)
                return (i + ml + 1 - start, "other", None)
            ml, _ = _modrm_len(code, i)
            return (i + ml - start, "other", None)
        if op in (0xC4, 0xC5):
            # VEX: C5 xx op modrm / C4 xx xx op modrm
            if op == 0xC5:
                i += 1
            else:
                i += 2
            op3 = code[i]
            i += 1
            if op3 == 0x77:
                return (i - start, "other", None)
            ml, _ = _modrm_len(code, i)
            imm8 = 1 if (op == 0xC4 and (code[start + 1 + (0 if code[start] == op else 1)] & 0x1F) == 3) else 0
            return (i + ml + imm8 - start, "other", None)
    except (IndexError, struct.error):
        return None
    return None


def slices_in(elf, va, size):
    """String slices referenced by a function: a RIP-relative lea of a .rodata address followed,
    within a few instructions and before any call/jump or other RIP-relative lea, by a 32-bit
    immediate (the slice length).  Each lea found by pattern is decoded forward on its own, so a
    mis-decoded instruction elsewhere cannot desynchronise the scan."""
    code = elf.code(va, size)
    out = []
    for m in LEA.finditer(code):
        disp, = struct.unpack("<i", m.group(2))
        target = va + m.end() + disp
        if not elf.in_section(target, ".rodata"):
            continue
        i = m.end()
        for _ in range(8):
            d = decode(code, i)
            if d is None:
                break
            ln, kind, val = d
            if kind in ("stop", "lea_rip"):
                break
            if kind == "imm":
                if 0 < val <= 64:
                    off = elf.va2off(target)
                    s = elf.data[off:off + val]
                    if SLICE_NAME.match(s):
                        out.append((va + m.start(), s.decode()))
                break
            i += ln
    return out


def callees(elf, va, size):
    code = elf.code(va, size)
    funcs = elf.func_by_addr()
    out = set()
    for m in CALL.finditer(code):
        rel, = struct.unpack("<i", m.group(1))
        t = va + m.end() + rel
        if t in funcs:
            out.add(funcs[t][1])
    return out


def _dedupe(names):
    seen = []
    for n in names:
        if n not in seen:
            seen.append(n)
    return seen


def relative_relocs(elf):
    if getattr(elf, "_rel", None) is None:
        elf._rel = {}
        r = elf.sections.get(".rela.dyn")
        if r:
            d = elf.data
            for i in range(r["size"] // 24):
                o, inf, add = struct.unpack_from("<QQq", d, r["off"] + i * 24)
                if (inf & 0xFFFFFFFF) == 8:
                    elf._rel[o] = add
    return elf._rel


VLOAD = re.compile(rb"\xc5([\xf8\xfc\xfa\xfe])([\x10\x28\x6f])([\x05\x0d\x15\x1d\x25\x2d\x35\x3d])(....)", re.S)


def table_slices_in(elf, va, size):
    """String slices copied from a static (ptr, len) table by vector loads (vmovups/vmovdqu of a
    RIP-relative .data.rel.ro address); the pointers are found through their relocations."""
    code = elf.code(va, size)
    rel = relative_relocs(elf)
    out = []
    for m in VLOAD.finditer(code):
        width = 32 if m.group(1) in (b"\xfc", b"\xfe") else 16
        disp, = struct.unpack("<i", m.group(4))
        target = va + m.end() + disp
        if not elf.in_section(target, ".data.rel.ro"):
            continue
        for k in range(0, width, 16):
            p = rel.get(target + k)
            if p is None or not elf.in_section(p, ".rodata"):
                continue
            off = elf.va2off(target + k)
            n, = struct.unpack_from("<Q", elf.data, off + 8)
            if 0 < n <= 64:
                so = elf.va2off(p)
                sv = elf.data[so:so + n]
                if SLICE_NAME.match(sv):
                    out.append((target + k, sv.decode()))
    out.sort()
    return out


def _insert_keys(elf, va, size):
    """The key slice of each HashMap insert call: the last slice before the call."""
    sl = slices_in(elf, va, size)
    code = elf.code(va, size)
    funcs = elf.func_by_addr()
    keys = []
    for m in CALL.finditer(code):
        rel, = struct.unpack("<i", m.group(1))
        t = va + m.end() + rel
        if t in funcs and "HashMap" in funcs[t][1] and "insert" in funcs[t][1]:
            cpos = va + m.start()
            prev = [s for p, s in sl if p < cpos and cpos - p < 96]
            if prev:
                keys.append(prev[-1])
    return keys


def _insert_calls(elf, va, size):
    code = elf.code(va, size)
    funcs = elf.func_by_addr()
    cnt = {}
    for m in CALL.finditer(code):
        rel, = struct.unpack("<i", m.group(1))
        t = va + m.end() + rel
        if t in funcs and "HashMap" in funcs[t][1] and "insert" in funcs[t][1]:
            cnt[t] = cnt.get(t, 0) + 1
    return max(cnt.values()) if cnt else 0


def _cgu(name):
    m = re.search(r"\.llvm\.(\d+)$", name)
    return m.group(1) if m else None


def find_registries(elf):
    """Locate the parser registries.  Tool: the closure filling a HashMap whose replaced values
    are dropped as Option<ToolCallConfig>, plus the unified-family name list (FAMILY_NAMES
    initialiser) when present.  Reasoning: the other registry-filling closure (>= 8 HashMap
    inserts of string keys) of the same codegen unit, or else the one adjacent to the tool
    closure in the text section."""
    syms = elf.symbols()
    notes = []
    tool, reasoning = [], []
    registry = []
    for va, size, name in syms:
        if ("closure" not in name and "call_once" not in name) or size < 300 or size > 100000:
            continue
        n = _insert_calls(elf, va, size)
        if n >= 8:
            registry.append((va, size, name, n))
    tool_fn = None
    for va, size, name, n in registry:
        cs = callees(elf, va, size)
        if any("ToolCallConfig" in c and "drop_in_place" in c for c in cs):
            tool_fn = (va, size, name, n)
            break
    tool_fn = next((r for r in registry if tool_fn and r[0] == tool_fn[0]), None)
    if tool_fn:
        keys = _insert_keys(elf, tool_fn[0], tool_fn[1])
        tool.extend(keys)
        notes.append("tool: HashMap<_, ToolCallConfig> closure %s @%#x: %d inserts, %d keys"
                     % (tool_fn[2][:70], tool_fn[0], tool_fn[3], len(keys)))
        # the reasoning registry closure is compiled from the same crate: it sits next to the
        # tool closure (same codegen unit suffix when there is one, else the nearest address)
        cgu = _cgu(tool_fn[2])
        others = [r for r in registry if r[0] != tool_fn[0] and cgu and _cgu(r[2]) == cgu]
        if not others:
            near = sorted((abs(r[0] - tool_fn[0]), r) for r in registry if r[0] != tool_fn[0])
            others = [near[0][1]] if near and near[0][0] < 0x10000 else []
        for va, size, name, n in others:
            keys = _insert_keys(elf, va, size)
            reasoning.extend(keys)
            notes.append("reasoning: registry closure next to the tool closure %s @%#x: %d inserts, %d keys"
                         % (name[:70], va, n, len(keys)))
    merge_tool = merge_reason = False
    for va, size, name in syms:
        if "__pyfunction_get_tool_parser_names" in name or "__pyfunction_get_reasoning_parser_names" in name:
            if any("with_unified_families" in c for c in callees(elf, va, size)):
                if "tool" in name:
                    merge_tool = True
                else:
                    merge_reason = True
    has_merge = any("with_unified_families" in n for _, _, n in syms)
    for va, size, name in syms:
        if "FAMILY_NAMES" in name and "closure" in name:
            keys = [s for _, s in table_slices_in(elf, va, size)] + [s for _, s in slices_in(elf, va, size)]
            if merge_tool or (has_merge and not merge_reason):
                tool.extend(keys)
            if merge_reason or (has_merge and not merge_tool):
                reasoning.extend(keys)
            notes.append("unified family names %s @%#x: %d names, merged into %s" % (
                name[:80], va, len(keys), "tool+reasoning" if (merge_tool == merge_reason) else
                ("tool" if merge_tool else "reasoning")))
    return _dedupe(tool), _dedupe(reasoning), notes


def scan_library(path) -> dict:
    """``{"parsers": {"tool": [...], "reasoning": [...]}, "parsers_source": [notes], "bytes": n}``
    of the library file at ``path`` (lists are None when the heuristics find nothing)."""
    with open(path, "rb") as f:
        data = f.read()
    out = {"bytes": len(data)}
    try:
        elf = Elf(data)
        tool, reasoning, notes = find_registries(elf)
        out["parsers"] = {"tool": tool or None, "reasoning": reasoning or None}
        out["parsers_source"] = notes
        out["has_symtab"] = bool(elf.symbols())
    except (ValueError, IndexError, struct.error) as e:
        out["parsers"] = {"tool": None, "reasoning": None}
        out["parsers_source"] = ["ELF scan failed: %r" % (e,)]
    return out
