"""Project configuration: ``.cfglint.yaml`` or ``[tool.cfglint]`` in ``pyproject.toml``, the
nearest one above the linted paths (``.cfglint.yaml`` first when both are in one directory).
Command-line options override it.

Keys: ``select`` / ``ignore`` (rule ids or families, e.g. ``RED``), ``per-file-ignores``
(glob -> ids), ``levels`` (id -> note | warning | error), ``fail-level``, ``knowledge``
(extra knowledge files, relative to the configuration file), ``require-reason`` (bool).
An unknown key or a wrong value is a :class:`ConfigError` naming its file, line and column.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from .model import LEVELS, Finding, rule_matches

KEYS = ("select", "ignore", "per-file-ignores", "levels", "fail-level", "knowledge", "require-reason")


class ConfigError(Exception):
    """The configuration file is wrong; ``str(err)`` is ``path:line:col: message``."""


@dataclass(slots=True)
class Config:
    path: str | None = None
    select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    levels: dict[str, str] = field(default_factory=dict)
    fail_level: str = "error"
    knowledge: list[str] = field(default_factory=list)
    require_reason: bool = False

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings kept by select / ignore / per-file-ignores, with levels overridden."""
        out = []
        for f in findings:
            if self.select and not rule_matches(f.rule_id, self.select):
                continue
            if rule_matches(f.rule_id, self.ignore):
                continue
            if any(fnmatch.fnmatch(f.span.path, pat) and rule_matches(f.rule_id, ids)
                   for pat, ids in self.per_file_ignores.items()):
                continue
            level = next((lvl for key, lvl in self.levels.items() if rule_matches(f.rule_id, [key])), None)
            if level:
                f.level = level
            out.append(f)
        return out


def find_config(paths: list[str]) -> str | None:
    """The nearest configuration file above the common directory of ``paths`` (or cwd)."""
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths] or [os.getcwd()]
    d = os.path.commonpath(dirs)
    while True:
        candidate = os.path.join(d, ".cfglint.yaml")
        if os.path.isfile(candidate):
            return candidate
        pyproject = os.path.join(d, "pyproject.toml")
        if os.path.isfile(pyproject) and _has_tool_section(pyproject):
            return pyproject
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _has_tool_section(path: str) -> bool:
    try:
        with open(path, encoding="utf-8") as fh:
            return re.search(r"^\s*\[tool\.cfglint\]", fh.read(), re.M) is not None
    except OSError:
        return False


def load_config(path: str | None) -> Config:
    """Read a configuration file (None: defaults). Raises ConfigError."""
    if path is None:
        return Config()
    if path.endswith(".toml"):
        data, where = _toml(path)
    else:
        data, where = _yaml(path)
    cfg = Config(path=path)
    base = os.path.dirname(os.path.abspath(path))
    for key, value in data.items():
        pos = where(key)
        if key not in KEYS:
            raise ConfigError(f"{pos}: unknown key '{key}'; known keys: {', '.join(KEYS)}")
        if key in ("select", "ignore", "knowledge"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{pos}: '{key}' must be a list of strings")
            value = [v.upper() for v in value] if key != "knowledge" else [os.path.join(base, v) for v in value]
            setattr(cfg, key, value)
        elif key == "per-file-ignores":
            if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
                raise ConfigError(f"{pos}: 'per-file-ignores' maps a glob to a list of rule ids")
            cfg.per_file_ignores = {k: [str(i).upper() for i in v] for k, v in value.items()}
        elif key == "levels":
            if not isinstance(value, dict) or any(v not in LEVELS for v in value.values()):
                raise ConfigError(f"{pos}: 'levels' maps a rule id to one of {', '.join(LEVELS)}")
            cfg.levels = {str(k).upper(): v for k, v in value.items()}
        elif key == "fail-level":
            if value not in LEVELS:
                raise ConfigError(f"{pos}: 'fail-level' must be one of {', '.join(LEVELS)}")
            cfg.fail_level = value
        elif key == "require-reason":
            if not isinstance(value, bool):
                raise ConfigError(f"{pos}: 'require-reason' must be true or false")
            cfg.require_reason = value
    return cfg


def _yaml(path: str):
    from .textfile import ReadError, read_text
    from .yamlsrc import YamlError, YMap, parse_yaml, to_python

    try:
        tf = read_text(path, path)
        root = parse_yaml(tf.text, path)
    except (ReadError, YamlError) as err:
        raise ConfigError(f"{path}:1:1: {err}") from None
    if root is None:
        return {}, lambda key: f"{path}:1:1"
    if not isinstance(root, YMap):
        raise ConfigError(f"{path}:1:1: the configuration must be a mapping")
    spans = {k.value: k.span for k, _ in root.items}
    return to_python(root), lambda key: f"{path}:{spans[key].line}:{spans[key].col}" if key in spans else f"{path}:1:1"


def _toml(path: str):
    import tomllib

    try:
        with open(path, "rb") as fh:
            text = fh.read()
        data = tomllib.loads(text.decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
        raise ConfigError(f"{path}:1:1: {err}") from None
    section = (data.get("tool") or {}).get("cfglint") or {}
    lines = text.decode("utf-8").split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(r"^\s*\[tool\.cfglint\]", line)), 0)

    def where(key: str) -> str:
        for i in range(start + 1, len(lines)):
            if re.match(r"^\s*\[", lines[i]):
                break
            m = re.match(rf'^(\s*)"?{re.escape(key)}"?\s*=', lines[i])
            if m:
                return f"{path}:{i + 1}:{len(m.group(1)) + 1}"
        return f"{path}:{start + 1}:1"

    return section, where
