"""Go template actions (``{{ ... }}``) inside shell text, as a Kubernetes operator renders them
before the shell runs (KServe's LLMInferenceServiceConfig: ``eval "exec vllm serve ...
{{- if .Spec.Parallelism.Tensor }} --tensor-parallel-size {{ .Spec.Parallelism.Tensor }}{{- end }}"``).

A value action (``{{ .Spec.Model.Name }}``, ``{{ or .Spec.Parallelism.Data 1 }}``) is text known
only at render time: it is masked as one opaque word. Control actions (``if``, ``else``,
``end``, ``range``, ``with``, comments) render nothing: masked as spaces. What a block
(``{{ if }}...{{ end }}``) holds is present on some renders only (conditional); a block with
no flag in it (``{{ if .X }}{{ .X }}{{ else }}5555{{ end }}``) is one value, masked whole as one
opaque word. Masking keeps every byte offset (text/template: https://pkg.go.dev/text/template,
"Actions"; ``{{-`` and ``-}}`` trim the white space beside them, which the shell ignores anyway).
"""

from __future__ import annotations

import bisect
import re

OPENS = (b"if", b"range", b"with", b"define", b"block")
CONTROL = OPENS + (b"else", b"end", b"break", b"continue")
_FLAG = re.compile(rb"(?:^|[\s\"'])--?[A-Za-z]")


def mask(data: bytes) -> tuple[bytes, bytearray, bytearray] | None:
    """(masked data, opaque bytes, conditional bytes) of UTF-8 ``data``, or None when it holds no
    Go template action. Linear in the length of ``data`` however the blocks nest (a block's
    decision reads the flags found once in the whole text, each byte is filled once)."""
    if b"{{" not in data or b"}}" not in data:
        return None
    n = len(data)
    actions: list[tuple[int, int, bool, int]] = []   # start, end, control, its outermost block (-1: none)
    blocks: list[list[int]] = []                     # [start, end]
    stack: list[int] = []                            # open blocks (indexes into blocks)
    pos = 0
    while True:
        a = data.find(b"{{", pos)
        if a < 0:
            break
        close_at = data.find(b"}}", a + 2)
        if close_at < 0:
            break      # no action closes after this one, nor after any later "{{"
        b = close_at + 2
        pos = b
        body = data[a + 2:close_at]
        if body.startswith(b"-"):
            body = body[1:]
        if body.endswith(b"-"):
            body = body[:-1]
        body = body.strip()
        word = re.split(rb"\s", body, maxsplit=1)[0] if body else b""
        control = word in CONTROL or body.startswith(b"/*")
        if word in OPENS:
            blocks.append([a, n])
            stack.append(len(blocks) - 1)
            actions.append((a, b, True, stack[0]))
        elif word == b"end" and stack:
            actions.append((a, b, True, stack[0]))
            blocks[stack.pop()][1] = b
        else:
            actions.append((a, b, control, stack[0] if stack else -1))
    # the text with every action blanked: a block holds a flag when a flag written outside any
    # action lies wholly inside it (the block starts and ends with a blanked action)
    literal = bytearray(data)
    for a, b, _control, _outer in actions:
        literal[a:b] = b" " * (b - a)
    starts, ends = [], []
    for m in _FLAG.finditer(bytes(literal)):
        starts.append(m.start())
        ends.append(m.end())
    flagged = []
    for start, end in blocks:
        i = bisect.bisect_left(starts, start)
        flagged.append(i < len(starts) and ends[i] <= end)
    out = bytearray(data)
    opaque = bytearray(n)
    conditional = bytearray(n)
    # a block with no flag is one value, known only at render time: masked whole (its own blocks
    # too); a block holding a flag is present on some renders only
    for (start, end), flag in _union(blocks, flagged, False):
        out[start:end] = b"_" * (end - start)
        opaque[start:end] = b"\x01" * (end - start)
    for (start, end), _flag in _union(blocks, flagged, True):
        conditional[start:end] = b"\x01" * (end - start)
    # an action: as its outermost block decides (a value-only block masks it, else control actions
    # render nothing and value actions are one opaque word)
    for a, b, control, outer in actions:
        if outer >= 0 and not flagged[outer]:
            continue          # filled with the whole block above
        out[a:b] = (b" " if control else b"_") * (b - a)
        if not control:
            opaque[a:b] = b"\x01" * (b - a)
    return bytes(out), opaque, conditional


def _union(blocks: list[list[int]], flagged: list[bool], flag: bool):
    """The union of the blocks (in the order they start) whose flag is ``flag``, as disjoint ranges."""
    cur: list[int] | None = None
    for (start, end), f in zip(blocks, flagged):
        if f != flag:
            continue
        if cur is not None and start <= cur[1]:
            cur[1] = max(cur[1], end)
            continue
        if cur is not None:
            yield (cur[0], cur[1]), flag
        cur = [start, end]
    if cur is not None:
        yield (cur[0], cur[1]), flag
