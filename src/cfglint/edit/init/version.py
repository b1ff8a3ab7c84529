"""``engine.version``: the release in the tags of the container images a launch runs."""

from __future__ import annotations

import re

from ...deploy.extract import Deployment
from .fields import Derived

# a release in an image tag, as TOP002 reads it (checks/declared.py)
SEMVER = re.compile(r"(?<![0-9.])v?(\d+\.\d+\.\d+(?:rc\d+(?:\.post\d+)?|\.post\d+)?)")


def derive_version(dep: Deployment, out: Derived) -> None:
    """Set ``engine.version`` in ``out.manifest``: the one release the engine images are tagged
    with; else say in ``out.missing`` why not."""
    tags = set()
    for p in dep.processes:
        if p.image is not None and isinstance(p.image.value, str):
            if "/ai-dynamo/" in "/" + p.image.value:
                continue   # NVIDIA Dynamo's runtime images (nvcr.io/nvidia/ai-dynamo/*-runtime) are tagged with Dynamo's release
            last = p.image.value.rsplit("/", 1)[-1]
            t = SEMVER.search(last.split(":", 1)[1]) if ":" in last else None
            if t:
                tags.add(t.group(1))
    if len(tags) == 1:
        out.manifest["engine"]["version"] = tags.pop()
    else:
        out.missing["engine.version"] = ("the container images have different version tags" if tags else
                                         "no container image with a version tag (e.g. :v0.5.17) in the launch")
