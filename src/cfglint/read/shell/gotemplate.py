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

import re

ACTION = re.compile(rb"\{\{-?(.*?)-?\}\}", re.S)
OPENS = (b"if", b"range", b"with", b"define", b"block")
CONTROL = OPENS + (b"else", b"end", b"break", b"continue")
_FLAG = re.compile(rb"(?:^|[\s\"'])--?[A-Za-z]")


def mask(data: bytes) -> tuple[bytes, bytearray, bytearray] | None:
    """(masked data, opaque bytes, conditional bytes) of UTF-8 ``data``, or None when it holds no
    Go template action."""
    if b"{{" not in data or b"}}" not in data:
        return None
    out = bytearray(data)
    opaque = bytearray(len(data))
    conditional = bytearray(len(data))
    stack: list[tuple[int, list[tuple[int, int, bool]]]] = []  # (block start, its actions: start, end, control)

    def fill(a: int, b: int, byte: int) -> None:
        out[a:b] = bytes([byte]) * (b - a)

    def close(start: int, actions: list[tuple[int, int, bool]], end: int) -> None:
        literal = bytearray(data[start:end])
        for a, b, _control in actions:
            literal[a - start:b - start] = b" " * (b - a)
        if _FLAG.search(bytes(literal)):
            for a, b, control in actions:
                fill(a, b, 0x20 if control else 0x5F)
                if not control:
                    opaque[a:b] = b"\x01" * (b - a)
            conditional[start:end] = b"\x01" * (end - start)
        else:   # one value: the whole block is known only at render time
            fill(start, end, 0x5F)
            opaque[start:end] = b"\x01" * (end - start)
        if stack:
            stack[-1][1].extend(actions)

    for m in ACTION.finditer(data):
        a, b = m.start(), m.end()
        body = m.group(1).strip()
        word = re.split(rb"\s", body, maxsplit=1)[0] if body else b""
        comment = body.startswith(b"/*")
        if word in OPENS:
            stack.append((a, [(a, b, True)]))
        elif word == b"end" and stack:
            start, actions = stack.pop()
            close(start, actions + [(a, b, True)], b)
        elif stack:
            stack[-1][1].append((a, b, word in CONTROL or comment))
        elif word in CONTROL or comment:
            fill(a, b, 0x20)
        else:
            fill(a, b, 0x5F)
            opaque[a:b] = b"\x01" * (b - a)
    while stack:   # a block left open: it runs to the end of the text
        start, actions = stack.pop()
        close(start, actions, len(data))
    return bytes(out), opaque, conditional
