"""Project configuration: ``.cfglint.yaml`` or ``[tool.cfglint]`` in ``pyproject.toml``, the
nearest one above the linted paths (``.cfglint.yaml`` first when both are in one directory).
Command-line options override it.

Keys: ``select`` / ``ignore`` (rule ids or families, e.g. ``RED``), ``per-file-ignores``
(glob -> ids), ``levels`` (id -> note | warning | error), ``fail-level``, ``knowledge``
(extra knowledge files, relative to the configuration file), ``require-reason`` (bool),
``max-file-size`` (bytes; larger files are reported, not read), ``private-ranges`` (CIDR networks,
IPv4 or IPv6, whose addresses RED003 reports; replaces the bundled RFC 1918 / RFC 6598 list;
documentation ranges, RFC 5737 / RFC 3849, are never reported).
An unknown key or a wrong value is a :class:`ConfigError` naming its file, line and column.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from .model import LEVELS, Finding, rule_matches

KEYS = ("select", "ignore", "per-file-ignores", "levels", "fail-level", "knowledge", "require-reason",
        "max-file-size", "private-ranges")


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
    max_file_size: int = 10 * 1024 * 1024  # bytes; bigger files are an IO001 finding, not read
    private_ranges: tuple[str, ...] | None = None  # CIDR networks RED003 reports; None: rules/secrets.yaml's

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings kept by select / ignore / per-file-ignores, with levels overridden."""
        out = []
        for f in findings:
            if f.internal:  # a crash must stay visible whatever is selected
                out.append(f)
                continue
            if self.select and not rule_matches(f.rule_id, self.select):
                continue
            if rule_matches(f.rule_id, self.ignore):
                continue
            if self.per_file_ignores:
                # globs are relative to the configuration file's directory, wherever cfglint runs
                base = os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()
                rel = os.path.relpath(os.path.abspath(f.span.path), base).replace(os.sep, "/")
                if any(fnmatch.fnmatch(rel, pat) and rule_matches(f.rule_id, ids)
                       for pat, ids in self.per_file_ignores.items()):
                    continue
            level = next((lvl for key, lvl in self.levels.items() if rule_matches(f.rule_id, [key])), None)
            if level:
                f.level = level
            out.append(f)
        return out


def check_selectors(values: list[str], where: str, known: list[str]) -> None:
    """Raise ConfigError unless each value is a rule id or the family prefix of one."""
    for v in values:
        if not v or not any(k == v or (k.startswith(v) and not v[-1:].isdigit()) for k in known):
            import difflib

            close = difflib.get_close_matches(v, known, n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]}?" if close else "; see 'cfglint rules'"
            raise ConfigError(f"{where}: unknown rule selector '{v}'{hint}")


def find_config(paths: list[str]) -> str | None:
    """The nearest configuration file above the common directory of ``paths`` (or cwd). Raises
    ConfigError for one that is a symbolic link leading outside its git working tree (or, outside
    one, its directory): a contributor's link is never followed out (cfglint.safeio)."""
    dirs = [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths] or [os.getcwd()]
    d = os.path.commonpath(dirs)
    while True:
        candidate = os.path.join(d, ".cfglint.yaml")
        if os.path.isfile(candidate):
            return _not_linked_out(candidate)
        pyproject = os.path.join(d, "pyproject.toml")
        if os.path.isfile(pyproject) and _not_linked_out(pyproject) and _has_tool_section(pyproject):
            return pyproject
        parent = os.path.dirname(d)
        if parent == d:
            return None
        d = parent


def _not_linked_out(path: str) -> str:
    """``path``, unless its real path leaves its git working tree (or its directory): ConfigError."""
    from .safeio import git_top, inside

    top = git_top(path) or os.path.dirname(path)
    if not inside(os.path.realpath(path), os.path.realpath(top)):
        raise ConfigError(f"{path}:1:1: is a symbolic link that leads outside the working tree; cfglint does "
                          "not follow links out of it (make it a file, or pass --config)")
    return path


def _has_tool_section(path: str) -> bool:
    """Whether a pyproject.toml configures cfglint ([tool.cfglint] or dotted tool.cfglint.* keys).
    A pyproject that does not parse counts when it mentions the section, so its error is shown."""
    import tomllib

    from .safeio import ReadError, read_bytes

    try:
        raw = read_bytes(path)
    except ReadError:
        return False
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return re.search(rb"^\s*(\[tool\.cfglint|tool\.cfglint)", raw, re.M) is not None
    tool = data.get("tool")
    return isinstance(tool, dict) and "cfglint" in tool


def load_config(path: str | None) -> Config:
    """Read a configuration file (None: defaults). Raises ConfigError."""
    if path is None:
        return Config()
    if path.endswith(".toml"):
        data, where = _toml(path)
    else:
        data, where = _yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{where(None)}: the cfglint configuration must be a table / mapping")
    from .checks import all_rules

    known = list(all_rules())
    cfg = Config(path=path)
    base = os.path.dirname(os.path.abspath(path))
    for key, value in data.items():
        pos = where(key)
        if key not in KEYS:
            raise ConfigError(f"{pos}: unknown key '{key}'; known keys: {', '.join(KEYS)}")
        if key in ("select", "ignore") and isinstance(value, list):
            check_selectors([str(v).upper() for v in value], pos, known)
        if key in ("levels", "per-file-ignores") and isinstance(value, dict):
            ids = list(value) if key == "levels" else [i for v in value.values() if isinstance(v, list) for i in v]
            check_selectors([str(v).upper() for v in ids], pos, known)
        if key in ("select", "ignore", "knowledge"):
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{pos}: '{key}' must be a list of strings")
            value = [v.upper() for v in value] if key != "knowledge" else [os.path.join(base, v) for v in value]
            if key == "knowledge":
                from .safeio import git_top, inside

                top = os.path.realpath(git_top(path) or base)
                for v, full in zip(data[key], value):
                    if "\x00" in full or not inside(os.path.realpath(full), top):
                        raise ConfigError(f"{pos}: knowledge file '{v}' lies outside the working tree (or is a "
                                          "symbolic link leading out of it); name files inside it, or pass --knowledge")
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
        elif key == "max-file-size":
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise ConfigError(f"{pos}: 'max-file-size' must be a positive number of bytes")
            cfg.max_file_size = value
        elif key == "private-ranges":
            import ipaddress

            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise ConfigError(f"{pos}: 'private-ranges' must be a list of CIDR networks (\"10.0.0.0/8\", \"fd00::/8\")")
            for v in value:
                try:
                    ipaddress.ip_network(v)
                except ValueError as err:
                    raise ConfigError(f"{pos}: 'private-ranges': {err}") from None
            cfg.private_ranges = tuple(value)
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
    except ReadError as err:
        raise ConfigError(f"{path}:1:1: {err}") from None
    except YamlError as err:
        where = f"{path}:{err.span.line}:{err.span.col}" if err.span else f"{path}:1:1"
        raise ConfigError(f"{where}: {err}") from None
    if root is None:
        return {}, lambda key: f"{path}:1:1"
    if not isinstance(root, YMap):
        raise ConfigError(f"{path}:1:1: the configuration must be a mapping")
    if root.duplicates:
        first, again = root.duplicates[0]
        raise ConfigError(f"{path}:{again.span.line}:{again.span.col}: duplicate key '{again.text}' "
                          f"(first at line {first.span.line})")
    spans = {k.value: k.span for k, _ in root.items}
    return to_python(root), lambda key: f"{path}:{spans[key].line}:{spans[key].col}" if key in spans else f"{path}:1:1"


def _toml(path: str):
    import tomllib

    from .safeio import ReadError, read_bytes

    try:  # safeio: a regular file of at most 10 MiB; a FIFO or device is never opened
        text = read_bytes(path)
        data = tomllib.loads(text.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        raise ConfigError(f"{path}:{m.group(1)}:{m.group(2)}: {err}" if m else f"{path}:1:1: {err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{path}:1:1: invalid UTF-8 at byte offset {err.start}; save it as UTF-8") from None
    except RecursionError:
        raise ConfigError(f"{path}:1:1: TOML nesting is too deep to parse") from None
    except (OSError, ReadError) as err:
        raise ConfigError(f"{path}:1:1: {err}") from None
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
        section = tool.get("cfglint", {})
    else:  # a cfglint.toml of its own: the keys are at the top level
        section = data
    lines = text.decode("utf-8").split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(r"^\s*\[tool\.cfglint\]", line)), 0)

    def where(key: str | None) -> str:
        if key is None:
            return f"{path}:{start + 1}:1"
        for i in range(start + 1, len(lines)):
            if re.match(r"^\s*\[", lines[i]):
                break
            m = re.match(rf'^(\s*)["\']?{re.escape(key)}["\']?\s*=', lines[i])
            if m:
                return f"{path}:{i + 1}:{len(m.group(1)) + 1}"
        return f"{path}:{start + 1}:1"

    return section, where
