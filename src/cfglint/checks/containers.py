"""Shared memory of an engine's container started with ``docker run`` / ``podman run`` (part of
K8S003, deployment hygiene): more than one GPU needs the host's IPC namespace or a /dev/shm of
at least :data:`MIN_SHM_BYTES`, as a Kubernetes pod does."""

from __future__ import annotations

import re

from ..model import MAX_INT_DIGITS, Finding
from .base import Context
from .nodes import _local
from .topology import gpus_per_instance

MIN_SHM_BYTES = 1 << 30   # 1 GiB, K8S003's threshold for a pod's /dev/shm
# docker run --shm-size is read by docker/go-units RAMInBytes (docker/cli opts.MemBytes; podman
# alike): a decimal number, an optional space, then an optional unit b, or k, m, g, t, p (1024
# multiples) with an optional "b" or "ib" after it, any case; bytes without one; a negative
# number, another unit or no digit is refused ("invalid size", "invalid suffix"). Source:
# docker/go-units size.go @ 2bd057e7d15e (parseSize); docs.docker.com/reference/cli/docker/container/run/
# (--shm-size; the docs name b, k, m, g)
_FLOAT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_UNIT = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
MAX_BYTES = (1 << 63) - 1   # docker holds the size in an int64


def shm_size(text: str) -> tuple[int | None, str | None]:
    """(bytes, None) of a ``--shm-size`` value (``32g``, ``10.24g``, ``512m``, ``1GiB``,
    ``1073741824``); (None, why docker refuses it) for one it does not read; (None, None) for a
    number form cfglint does not read (Go's hexadecimal floats, ``inf``)."""
    t = text.strip().strip("'\"")
    num, space, sfx = t.partition(" ")
    if not space:
        cut = max(t.rfind(ch) for ch in "0123456789.")
        if cut < 0:
            return None, "the size has no number"
        num, sfx = t[:cut + 1], t[cut + 1:]
    if not _FLOAT.fullmatch(num):
        if re.match(r"[+-]?(0[xX]|inf|nan)", num, re.I):
            return None, None
        return None, f"{num!r} is not a number"
    if len(num.lstrip("+-").split(".")[0].split("e")[0].split("E")[0]) > MAX_INT_DIGITS:
        return None, "the size is beyond what docker holds (an int64 of bytes)"
    size = float(num)
    if size < 0:
        return None, "the size is negative"
    low = sfx.lower()
    if low in ("", "b"):
        mult = 1
    elif len(low) <= 3 and low[0] in _UNIT and low[1:] in ("", "b", "ib"):
        mult = _UNIT[low[0]]
    else:
        return None, f"the unit {sfx!r} is not one docker reads (b, k, m, g, t or p, optionally with b or ib)"
    size *= mult
    if size != size or size >= MAX_BYTES:   # nan, or beyond an int64
        return None, "the size is beyond what docker holds (an int64 of bytes)"
    return int(size), None


def container_shm(ctx: Context):
    """K8S003 findings for engine processes of a ``docker run`` / ``podman run`` on more than one
    GPU without ``--ipc=host``, a ``-v SRC:/dev/shm`` bind or a ``--shm-size`` of at least 1 GiB."""
    for p in ctx.deployment.engine_processes():
        if p.container is None or p.pod is not None:
            continue
        ipc, shm = p.container_ipc, p.container_shm
        tool = p.container.value
        # a size docker does not read: it refuses to start the container, whatever the GPUs and IPC
        size, refused = shm_size(str(shm.value)) if shm is not None and "$" not in str(shm.value) else (None, None)
        if shm is not None and refused is not None:
            binary = str(tool).split()[0]
            yield Finding("K8S003", f"{tool} --shm-size {shm.value}: {refused}, so {binary} refuses to start the container; "
                                    "write a number and a unit b, k, m or g, such as 32g",
                          shm.span)
            continue
        if p.container_shm_mount is not None or (ipc is not None and str(ipc.value).strip("'\"") == "host"):
            continue
        if (ipc is not None and "$" in str(ipc.value)) or (shm is not None and "$" in str(shm.value)):
            continue   # a run-time value: not judged
        if shm is not None and size is None:
            ctx.not_checked("shared memory (K8S003)", f"--shm-size {shm.value} is a number form cfglint does not read",
                            shm.span)
            continue
        local = _local(p, gpus_per_instance(p))
        if local is None or local[0] <= 1:
            continue
        gpus, how = local
        if size is not None and size >= MIN_SHM_BYTES:
            continue
        if shm is not None:
            yield Finding("K8S003", f"{tool} --shm-size {shm.value} gives the engine on {gpus} GPUs ({how}) less "
                                    f"shared memory than NCCL needs (at least 1g); raise --shm-size or add --ipc=host",
                          shm.span)
        else:
            yield Finding("K8S003", f"{tool} starts an engine on {gpus} GPUs ({how}) with the default 64 MiB "
                                    f"/dev/shm: add --ipc=host or --shm-size of at least 1g", p.container.span)
