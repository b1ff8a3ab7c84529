"""The package tree of one engine release, as extracted files: module names to files, each file
parsed once. Nothing here imports or runs the files; they are read as text and parsed with
:mod:`ast`."""

from __future__ import annotations

import ast
import os
from pathlib import Path

__all__ = ["SourceTree"]


class SourceTree:
    """A directory holding one release's packages (``root/vllm/...``, ``root/sglang/...``).

    Module names are dotted (``vllm.engine.arg_utils``); paths given out are relative to ``root``
    with ``/`` separators, so records do not depend on where the tree lies.
    """

    def __init__(self, root: str | os.PathLike):
        self.root = Path(root)
        self._paths: dict[str, Path | None] = {}
        self._trees: dict[str, ast.Module | None] = {}
        self._file_trees: dict[str, ast.Module | None] = {}
        self._texts: dict[str, str | None] = {}

    # -- module names ------------------------------------------------------------------------
    def path_of(self, module: str) -> Path | None:
        """The file of ``module`` (``a/b.py`` or ``a/b/__init__.py``), None when the tree lacks it."""
        if module in self._paths:
            return self._paths[module]
        found = None
        parts = module.split(".") if module else []
        if parts and all(p.isidentifier() for p in parts):
            base = self.root.joinpath(*parts)
            for cand in (base.with_name(base.name + ".py"), base / "__init__.py"):
                if cand.is_file():
                    found = cand
                    break
        self._paths[module] = found
        return found

    def has(self, module: str) -> bool:
        return self.path_of(module) is not None

    def is_package(self, module: str) -> bool:
        p = self.path_of(module)
        return p is not None and p.name == "__init__.py"

    def relpath(self, module: str) -> str | None:
        """``vllm/engine/arg_utils.py`` for ``vllm.engine.arg_utils``."""
        p = self.path_of(module)
        return p.relative_to(self.root).as_posix() if p is not None else None

    def module_of(self, rel: str) -> str:
        """The module name of a file path relative to the root."""
        parts = rel[:-3].split("/") if rel.endswith(".py") else rel.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        return ".".join(parts)

    def resolve_from(self, module: str, level: int, target: str | None) -> str:
        """The absolute module named by ``from <level dots><target> import ...`` inside ``module``."""
        if level == 0:
            return target or ""
        parts = module.split(".")
        if not self.is_package(module):
            parts = parts[:-1]
        if level > 1:
            parts = parts[: len(parts) - (level - 1)]
        base = ".".join(parts)
        if target:
            return f"{base}.{target}" if base else target
        return base

    # -- parsing -----------------------------------------------------------------------------
    def parse(self, module: str) -> ast.Module | None:
        """The syntax tree of ``module``; None when absent or not valid Python for this parser."""
        if module not in self._trees:
            rel = self.relpath(module)
            self._trees[module] = self.parse_file(rel) if rel is not None else None
        return self._trees[module]

    def parse_file(self, rel: str) -> ast.Module | None:
        """The syntax tree of the file at ``rel`` (relative to the root), parsed once."""
        if rel not in self._file_trees:
            tree = None
            path = self.root / rel
            if path.is_file():
                try:
                    tree = ast.parse(path.read_bytes(), filename=rel)
                except (SyntaxError, ValueError):
                    tree = None
            self._file_trees[rel] = tree
        return self._file_trees[rel]

    def text(self, rel: str) -> str | None:
        """The text of the file at ``rel`` (UTF-8, undecodable bytes replaced), None when absent."""
        if rel not in self._texts:
            path = self.root / rel
            self._texts[rel] = path.read_bytes().decode("utf-8", "replace") if path.is_file() else None
        return self._texts[rel]

    def module_text(self, module: str) -> str:
        rel = self.relpath(module)
        return (self.text(rel) or "") if rel else ""

    # -- walking -----------------------------------------------------------------------------
    def files(self, rel_dir: str, suffix: str = ".py", skip_dirs: tuple[str, ...] = ()) -> list[str]:
        """Files under ``rel_dir`` ending in ``suffix``, relative to the root, in a fixed order
        (directories and names sorted); a directory named in ``skip_dirs`` is not entered."""
        base = self.root / rel_dir
        out = []
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d not in skip_dirs)
            for name in sorted(filenames):
                if name.endswith(suffix):
                    out.append(Path(dirpath, name).relative_to(self.root).as_posix())
        return out

    def modules(self, package: str, skip_dirs: tuple[str, ...] = ()) -> list[str]:
        """Every module of ``package`` (the package itself included), in a fixed order."""
        return [self.module_of(rel) for rel in self.files(package.replace(".", "/"), ".py", skip_dirs)]
