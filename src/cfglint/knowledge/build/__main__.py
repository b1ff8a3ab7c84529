"""``python -m cfglint.knowledge.build TARGET [ARGS]``: run one knowledge generator."""

from __future__ import annotations

import importlib
import sys

from . import TARGETS


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in TARGETS:
        width = max(map(len, TARGETS))
        lines = "\n".join(f"  {name:<{width}}  {what}" for name, (_, what) in TARGETS.items())
        print(f"usage: python -m cfglint.knowledge.build TARGET [ARGS]\n\ntargets:\n{lines}", file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    module = importlib.import_module(f"{__package__}.{TARGETS[argv[0]][0]}")
    return module.main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
