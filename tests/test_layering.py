"""The package's layout is its pipeline: one folder per stage, imports only downward, no circle.

Stages, lowest first (``src/cfglint/__init__.py`` says the same): the shared data model at the
ground, then read -> knowledge -> schema -> load -> deploy -> checks -> policy -> output -> edit,
and the runner and the command line on top. A module may import its own stage and any stage
below it; every import counts, module-level, inside a function or under ``TYPE_CHECKING``.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "cfglint"

GROUND = ("", "model")                  # cfglint/__init__.py (the version), cfglint/model.py
STAGES = ("read", "knowledge", "schema", "load", "deploy", "checks", "policy", "output", "edit")
TOP = ("lint", "cli", "__main__", "server")
TOP_FOLDERS = ("server",)               # the language server: on top, beside the command line


def _modules() -> dict[str, Path]:
    """Dotted module name (without ``cfglint.``; "" for the package) -> file."""
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


MODULES = _modules()


def _is_package(name: str) -> bool:
    return MODULES[name].name == "__init__.py"


def imports(name: str) -> set[str]:
    """The cfglint modules ``name`` imports (``from pkg import sub`` counts as importing ``sub``
    when it is a module, else ``pkg``)."""
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    here = name.split(".") if name else []
    base_of_module = here if _is_package(name) else here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name == "cfglint" or alias.name.startswith("cfglint."):
                    found.add(alias.name[len("cfglint."):] if "." in alias.name else "")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = base_of_module[:len(base_of_module) - (node.level - 1)] if node.level > 1 else base_of_module
                target = base + (node.module.split(".") if node.module else [])
            elif node.module and (node.module == "cfglint" or node.module.startswith("cfglint.")):
                target = node.module.split(".")[1:]
            else:
                continue
            dotted = ".".join(target)
            for alias in node.names:
                sub = ".".join(target + [alias.name])
                found.add(sub if sub in MODULES else dotted)
    found.discard(name)
    unknown = found - set(MODULES)
    assert not unknown, f"{name} imports modules that do not exist: {sorted(unknown)}"
    return found


def stage(name: str) -> str:
    head = name.split(".")[0]
    if name in GROUND:
        return "ground"
    if head in TOP:
        return "top"
    assert head in STAGES, f"cfglint.{name} is in no stage: put it in one of {STAGES} or on top"
    return head


RANK = {s: i for i, s in enumerate(("ground", *STAGES, "top"))}
GRAPH = {m: imports(m) for m in MODULES}


def test_package_holds_only_stage_folders_and_top_modules():
    entries = {p.name for p in PACKAGE.iterdir() if p.name != "__pycache__"}
    allowed = {f"{m}.py" for m in ("__init__", "model", *TOP) if m not in TOP_FOLDERS} | set(STAGES) | set(TOP_FOLDERS)
    assert entries <= allowed, f"loose entries in src/cfglint: {sorted(entries - allowed)}"
    assert set(STAGES) <= entries


@pytest.mark.parametrize("folder", STAGES)
def test_every_stage_says_what_it_takes_and_gives(folder):
    doc = ast.get_docstring(ast.parse((PACKAGE / folder / "__init__.py").read_text(encoding="utf-8")))
    assert doc and len(doc.split()) >= 20, f"src/cfglint/{folder}/__init__.py needs a docstring of the stage"


def test_imports_run_only_downward():
    upward = sorted(f"cfglint.{m or '__init__'} ({stage(m)}) imports cfglint.{t} ({stage(t)})"
                    for m, targets in GRAPH.items() for t in targets if RANK[stage(t)] > RANK[stage(m)])
    assert not upward, "imports from a later stage:\n" + "\n".join(upward)


def test_no_import_circle():
    # Tarjan's strongly connected components: any component of two or more modules is a circle
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(GRAPH[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                circles.append(sorted(comp))

    for m in sorted(GRAPH):
        if m not in index:
            visit(m)
    assert not circles, "import circles: " + "; ".join(" <-> ".join(c) for c in circles)


def test_the_checker_sees_a_violation():
    """The graph above is real: the runner imports the checks, and checks import the deploy stage."""
    assert "checks" in GRAPH["lint"]
    assert "deploy.extract" in GRAPH["checks"]
    assert RANK[stage("output.report")] > RANK[stage("checks")]
