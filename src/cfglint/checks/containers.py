"""Shared memory of an engine's container started with ``docker run`` / ``podman run`` (part of
K8S003, deployment hygiene): more than one GPU needs the host's IPC namespace or a /dev/shm of
at least :data:`MIN_SHM_BYTES`, as a Kubernetes pod does."""

from __future__ import annotations

import re

from ..model import MAX_INT_DIGITS, Finding, parse_int
from .base import Context
from .nodes import _local
from .topology import gpus_per_instance

MIN_SHM_BYTES = 1 << 30   # 1 GiB, K8S003's threshold for a pod's /dev/shm
# docker run --shm-size: <number>[<unit>], unit b, k, m or g (1024 multiples), bytes without one
# (docs.docker.com/reference/cli/docker/container/run/ --shm-size; podman-run(1) --shm-size)
_SIZE = re.compile(r"([0-9]+(?:\.[0-9]+)?)([bkmgBKMG]?)")
_UNIT = {"": 1, "b": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30}


def shm_bytes(text: str) -> int | None:
    """Bytes of a ``--shm-size`` value (``32g``, ``10.24g``, ``512m``, ``1073741824``), or None."""
    m = _SIZE.fullmatch(text.strip().strip("'\""))
    if not m or len(m.group(1)) > MAX_INT_DIGITS:   # more digits than a float holds: no size docker reads
        return None
    return parse_int(int(float(m.group(1)) * _UNIT[m.group(2).lower()]))


def container_shm(ctx: Context):
    """K8S003 findings for engine processes of a ``docker run`` / ``podman run`` on more than one
    GPU without ``--ipc=host``, a ``-v SRC:/dev/shm`` bind or a ``--shm-size`` of at least 1 GiB."""
    for p in ctx.deployment.engine_processes():
        if p.container is None or p.pod is not None:
            continue
        ipc, shm = p.container_ipc, p.container_shm
        if p.container_shm_mount is not None or (ipc is not None and str(ipc.value).strip("'\"") == "host"):
            continue
        if (ipc is not None and "$" in str(ipc.value)) or (shm is not None and "$" in str(shm.value)):
            continue   # a run-time value: not judged
        local = _local(p, gpus_per_instance(p))
        if local is None or local[0] <= 1:
            continue
        gpus, how = local
        size = shm_bytes(str(shm.value)) if shm is not None else None
        if shm is not None and size is None:
            continue   # a size docker does not read: docker refuses it at start
        if size is not None and size >= MIN_SHM_BYTES:
            continue
        tool = p.container.value
        if shm is not None:
            yield Finding("K8S003", f"{tool} --shm-size {shm.value} gives the engine on {gpus} GPUs ({how}) less "
                                    f"shared memory than NCCL needs (at least 1g); raise --shm-size or add --ipc=host",
                          shm.span)
        else:
            yield Finding("K8S003", f"{tool} starts an engine on {gpus} GPUs ({how}) with the default 64 MiB "
                                    f"/dev/shm: add --ipc=host or --shm-size of at least 1g", p.container.span)
