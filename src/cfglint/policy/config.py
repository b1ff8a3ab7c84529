"""Project configuration: ``.cfglint.yaml`` or ``[tool.cfglint]`` in ``pyproject.toml``.

Trust (README, "Suppressions, configuration, baselines, fixes"): the *root directory* of a run is
the top of the git working tree cfglint runs in (the nearest directory holding ``.git`` at or
above the current directory) when a linted path lies inside it; otherwise the top of the git
working tree holding the linted paths; outside any git working tree, the current directory
(or, for paths outside it, their common directory): :func:`trust_root`. The *root configuration* is the nearest
configuration file at or above the root directory (``.cfglint.yaml`` first when both are in
one directory), or ``--config FILE``. It alone decides. A configuration file below the root
directory (a *nested* configuration, e.g. a contributor's ``submissions/x/.cfglint.yaml``) may
set only the keys the root lists in ``allow-nested``, acts only on files under its own
directory, and never silences or lowers :data:`PROTECTED` rules; everything else in it is
ignored with a CFG001 finding at its position. Command-line options override the root.

Keys: ``select`` / ``ignore`` (rule ids or families, e.g. ``RED``), ``per-file-ignores``
(glob -> ids), ``levels`` (id -> note | warning | error), ``fail-level``, ``knowledge``
(extra knowledge files, relative to the configuration file), ``require-reason`` (bool),
``max-file-size`` (bytes; larger files are reported, not read), ``private-ranges`` (CIDR networks,
IPv4 or IPv6, whose addresses RED003 reports; replaces the bundled RFC 1918 / RFC 6598 list;
documentation ranges, RFC 5737 / RFC 3849, are never reported), ``allow-nested`` (root only:
which of :data:`NESTABLE` nested configurations may set; default none), ``jobs`` (worker processes
of ``cfglint check``; default: the CPUs it may use).
An unknown key or a wrong value in the root configuration is a :class:`ConfigError` naming its
file, line and column; in a nested configuration it is a CFG001 finding and the key is ignored.
"""

from __future__ import annotations

import fnmatch
import os
import re
import stat
from dataclasses import field
from typing import Callable, Iterable

from ..model import Finding, LEVELS, Span, record, rule_matches
from ..read.safeio import git_top, inside

KEYS = ("select", "ignore", "per-file-ignores", "levels", "fail-level", "knowledge", "require-reason",
        "max-file-size", "private-ranges", "allow-nested", "jobs")
# Keys a root configuration may let nested configurations set: each acts on findings only, and a
# nested configuration's only on the files under its own directory. The others act on the whole run
# (fail-level, require-reason, max-file-size, private-ranges, jobs: what is reported, and how, everywhere)
# or read files (knowledge: any path, read into the knowledge base every submission is checked
# against), so only the root configuration or the command line sets them.
NESTABLE = ("select", "ignore", "per-file-ignores", "levels")
# Rules no nested configuration can drop or lower, whatever the root allows: a leaked credential,
# and the finding on a nested configuration itself.
PROTECTED = ("RED002", "CFG001")
CONFIG_NAMES = (".cfglint.yaml", "pyproject.toml")
NESTED_MAX_BYTES = 64 * 1024  # a configuration is a few lines; a bigger nested one is not read (nor parsed)
NESTED_MAX_ENTRIES = 100  # entries of one list / mapping taken from a nested configuration
NESTED_MAX_FINDINGS = 20  # CFG001 findings listed per nested configuration (then one count)


class ConfigError(Exception):
    """The configuration file is wrong; ``str(err)`` is ``path:line:col: message`` of the first
    problem, ``messages`` lists every problem found (one line each)."""

    def __init__(self, *messages: str):
        super().__init__(messages[0] if messages else "")
        self.messages = list(messages)


@record
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
    allow_nested: tuple[str, ...] = ()  # keys of NESTABLE that nested configurations may set
    jobs: int | None = None  # worker processes of a run; None: the CPUs it may use (cli)
    root_dir: str | None = None  # the run's root directory (absolute); None: trust_root() of the linted paths
    read_nested: bool = True  # False with --no-config: nested configurations are not looked at either
    scope: str | None = None  # a nested configuration: the directory (absolute) it acts on

    def apply(self, findings: list[Finding], nested: Iterable["Config"] = ()) -> list[Finding]:
        """Findings kept by select / ignore / per-file-ignores, with levels overridden: this (root)
        configuration's, then, for a finding in a file under a nested configuration's directory,
        that configuration's (outermost first); nested configurations never drop or relevel
        :data:`PROTECTED` rules."""
        nested = sorted(nested, key=lambda n: (len(n.scope or ""), n.scope or ""))
        out = []
        for f in findings:
            if f.internal:  # a crash must stay visible whatever is selected
                out.append(f)
                continue
            if not self._keeps(f):
                continue
            self._relevel(f)
            if nested and f.rule_id not in PROTECTED:
                where = os.path.abspath(f.span.path)
                inner = [n for n in nested if n.scope and inside(where, n.scope)]
                if not all(n._keeps(f) for n in inner):
                    continue
                for n in inner:
                    n._relevel(f)
            out.append(f)
        return out

    def _keeps(self, f: Finding) -> bool:
        if self.select and not rule_matches(f.rule_id, self.select):
            return False
        if rule_matches(f.rule_id, self.ignore):
            return False
        if self.per_file_ignores:
            # globs are relative to the configuration file's directory, wherever cfglint runs
            base = os.path.dirname(os.path.abspath(self.path)) if self.path else os.getcwd()
            rel = os.path.relpath(os.path.abspath(f.span.path), base).replace(os.sep, "/")
            if any(fnmatch.fnmatch(rel, pat) and rule_matches(f.rule_id, ids)
                   for pat, ids in self.per_file_ignores.items()):
                return False
        return True

    def _relevel(self, f: Finding) -> None:
        level = next((lvl for key, lvl in self.levels.items() if rule_matches(f.rule_id, [key])), None)
        if level:
            f.level = level


def check_selectors(values: list[str], where: str, known: list[str],
                    at: Callable[[int], str] | None = None) -> None:
    """Raise ConfigError unless each value is a rule id or the family prefix of one; the error
    is placed at ``at(i)`` for the ``i``-th value (its own position in a configuration file),
    else at ``where``, and names the closest rule id or family (``TPO`` -> ``TOP``)."""
    for i, v in enumerate(values):
        if not v or not any(k == v or (k.startswith(v) and not v[-1:].isdigit()) for k in known):
            raise ConfigError(f"{at(i) if at else where}: unknown rule selector '{v}'{_closest_rule(v, known)}")


def _closest_rule(value: str, known: list[str]) -> str:
    """``; did you mean X?`` for the rule id or family nearest ``value`` (a family for a value
    without digits, such as ``TPO``), else a pointer to the rule list."""
    import difflib

    families = sorted({re.match(r"[A-Z]*", k).group(0) for k in known} - {""})
    pool = families + known if not any(c.isdigit() for c in value) else known + families
    close = difflib.get_close_matches(value, pool, n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else "; see 'cfglint rules'"


def _closest_key(key) -> str:
    """``; did you mean 'select'?`` for the configuration key nearest ``key``, else ''."""
    import difflib

    close = difflib.get_close_matches(str(key), KEYS, n=1, cutoff=0.6)
    return f"; did you mean '{close[0]}'?" if close else ""


def selectors(values: Iterable[str], option: str) -> list[str]:
    """The rule selectors of a repeatable command-line option (``--select A --select B,C``):
    every value split at commas, upper-cased, in order, each once. Raises ConfigError when a
    value, or an item of a comma list, is empty (``--select ''``, ``--ignore RED,,TOP``): an
    empty selector would silently select everything (or nothing)."""
    out: list[str] = []
    for value in values:
        items = [s.strip().upper() for s in value.split(",")]
        if not all(items):
            shown = value.replace("\n", "\\n")
            raise ConfigError(f"{option} '{shown}': empty rule selector; give rule ids or families, "
                              f"comma-separated (e.g. {option} RED001,TOP)")
        out += [i for i in items if i not in out]
    return out


def _dirs(paths: list[str]) -> list[str]:
    return [os.path.abspath(p if os.path.isdir(p) else os.path.dirname(p) or ".") for p in paths] or [os.getcwd()]


def trust_root(paths: list[str]) -> str:
    """The run's root directory (absolute): the top of the git working tree of the current
    directory when it holds a linted path (pre-commit and CI run there); else the top of the git
    working tree holding the paths' common directory; else the current directory when it holds a
    linted path; else the paths' common directory. Configuration files below it, and around
    linted paths outside it, are nested ones."""
    dirs = _dirs(paths)
    cwd = os.getcwd()
    top = git_top(cwd)
    if top is not None and any(inside(d, top) for d in dirs):
        return top
    common = os.path.commonpath(dirs)
    top = git_top(common)
    if top is not None:
        return top
    return cwd if any(inside(d, cwd) for d in dirs) else common


def _configs_in(d: str) -> list[str]:
    """The configuration files in directory ``d``: ``.cfglint.yaml`` and a ``pyproject.toml``
    with a cfglint section, in that order (regular files only: a FIFO or device is never opened)."""
    out = []
    candidate = os.path.join(d, ".cfglint.yaml")
    if os.path.isfile(candidate):
        out.append(candidate)
    pyproject = os.path.join(d, "pyproject.toml")
    if os.path.isfile(pyproject) and _has_tool_section(pyproject):
        out.append(pyproject)
    return out


def find_config(paths: list[str], root_dir: str | None = None, ceiling: str | None = None) -> str | None:
    """The root configuration: the nearest configuration file at or above the root directory
    (``root_dir``, default :func:`trust_root` of ``paths``), looking no higher than directory
    ``ceiling`` when given (the language server's workspace folder); None when there is none."""
    d = root_dir or trust_root(paths)
    while True:
        found = _configs_in(d)
        if found:
            return _not_linked_out(found[0])
        parent = os.path.dirname(d)
        if parent == d or (ceiling is not None and not inside(parent, ceiling)):
            return None
        d = parent


def _not_linked_out(path: str) -> str:
    """``path``, unless its real path leaves its git working tree (or, outside one, its
    directory): ConfigError. A contributor's link is never followed out (cfglint.read.safeio)."""

    top = git_top(path) or os.path.dirname(path)
    if not inside(os.path.realpath(path), os.path.realpath(top)):
        from ..read.paths import display_path

        raise ConfigError(f"{display_path(path)}:1:1: is a symbolic link that leads outside the working tree; cfglint does "
                          "not follow links out of it (make it a file, or pass --config)")
    return path


def _has_tool_section(path: str, limit: int | None = None) -> bool:
    """Whether a pyproject.toml configures cfglint ([tool.cfglint] or dotted tool.cfglint.* keys).
    A pyproject that does not parse counts when it mentions the section, so its error is shown.
    With ``limit``, a file over ``limit`` bytes is not parsed: whether its first ``limit`` bytes
    mention the section decides."""
    import tomllib

    from ..read.safeio import ReadError, read_bytes

    try:  # safeio: a regular file only (a FIFO or device is never opened), at most 10 MiB or limit + 1 bytes
        raw = read_bytes(path) if limit is None else read_bytes(path, limit, partial=True)
    except ReadError:
        return False
    if limit is not None and len(raw) > limit:
        return re.search(rb"^\s*(\[tool\.cfglint|tool\.cfglint)", raw[:limit], re.M) is not None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return re.search(rb"^\s*(\[tool\.cfglint|tool\.cfglint)", raw, re.M) is not None
    tool = data.get("tool")
    return isinstance(tool, dict) and "cfglint" in tool


def load_config(path: str | None) -> Config:
    """Read the root configuration file (None: defaults). Raises ConfigError."""
    if path is None:
        return Config()
    if path.endswith(".toml"):
        data, pos = _toml(path)
    else:
        data, pos = _yaml(path)
    if not isinstance(data, dict):
        raise ConfigError(f"{_at(pos(()))}: the cfglint configuration must be a table / mapping")
    from ..checks import all_rules

    known = list(all_rules())
    cfg = Config(path=path)
    problems: list[str] = []
    for key, value in data.items():   # every key is checked: all its problems are reported at once
        try:
            _set(cfg, key, value, lambda sub=(), at_value=False, key=key: _at(pos((key, *sub), at_value)), known)
        except ConfigError as err:
            problems += err.messages
    if problems:
        raise ConfigError(*problems)
    return cfg


def _at(span: Span) -> str:
    return f"{span.path}:{span.line}:{span.col}"


def _set(cfg: Config, key, value, at: Callable[..., str], known: list[str]) -> None:
    """Set one configuration key on ``cfg``; ConfigError when the key or value is wrong, placed
    where it is wrong: ``at()`` is the key's position, ``at(sub)`` that of an entry below it (a
    list index, a mapping key) and ``at(sub, True)`` that of a value ("path:line:col")."""
    base = os.path.dirname(os.path.abspath(cfg.path)) if cfg.path else os.getcwd()
    pos = at()
    if key not in KEYS:
        raise ConfigError(f"{pos}: unknown key '{key}'{_closest_key(key)} (known keys: {', '.join(KEYS)})")
    if key in ("select", "ignore") and isinstance(value, list):
        check_selectors([str(v).upper() for v in value], pos, known, lambda i: at((i,), True))
    if key == "levels" and isinstance(value, dict):
        ids = list(value)
        check_selectors([str(v).upper() for v in ids], pos, known, lambda i: at((ids[i],)))
    if key == "per-file-ignores" and isinstance(value, dict):
        items = [(glob, j, sel) for glob, sels in value.items() if isinstance(sels, list) for j, sel in enumerate(sels)]
        check_selectors([str(sel).upper() for _, _, sel in items], pos, known,
                        lambda i: at((items[i][0], items[i][1]), True))
    if key in ("select", "ignore", "knowledge"):
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{pos}: '{key}' must be a list of strings")
        if key == "knowledge":  # a knowledge file must really lie inside the working tree (cfglint.read.safeio)
        
            top = os.path.realpath(git_top(cfg.path or base) or base)
            for v in value:
                full = os.path.join(base, v)
                if "\x00" in full or not inside(os.path.realpath(full), top):
                    raise ConfigError(f"{pos}: knowledge file '{v}' lies outside the working tree (or is a symbolic "
                                      "link leading out of it); name files inside it, or pass --knowledge")
        value = [v.upper() for v in value] if key != "knowledge" else [os.path.join(base, v) for v in value]
        setattr(cfg, key, value)
    elif key == "per-file-ignores":
        if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, list) for k, v in value.items()):
            raise ConfigError(f"{pos}: 'per-file-ignores' maps a glob to a list of rule ids")
        cfg.per_file_ignores = {k: [str(i).upper() for i in v] for k, v in value.items()}
    elif key == "levels":
        wrong = [k for k, v in value.items() if v not in LEVELS] if isinstance(value, dict) else []
        if not isinstance(value, dict) or wrong:
            where = at((wrong[0],), True) if wrong else pos
            raise ConfigError(f"{where}: 'levels' maps a rule id to one of {', '.join(LEVELS)}")
        cfg.levels = {str(k).upper(): v for k, v in value.items()}
    elif key == "fail-level":
        if value not in LEVELS:
            raise ConfigError(f"{at((), True)}: 'fail-level' must be one of {', '.join(LEVELS)}")
        cfg.fail_level = value
    elif key == "max-file-size":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{pos}: 'max-file-size' must be a positive number of bytes")
        cfg.max_file_size = value
    elif key == "jobs":
        if not isinstance(value, int) or isinstance(value, bool) or value < 1:
            raise ConfigError(f"{pos}: 'jobs' must be a positive number of worker processes")
        cfg.jobs = value
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
    elif key == "allow-nested":
        if not isinstance(value, list) or not all(isinstance(v, str) and v in NESTABLE for v in value):
            raise ConfigError(f"{pos}: 'allow-nested' lists the keys nested configurations may set, "
                              f"among {', '.join(NESTABLE)} ([] or absent: none)")
        cfg.allow_nested = tuple(value)


def _yaml(path: str, text: str | None = None):
    from ..read.paths import display_path
    from ..read.textfile import ReadError, read_text
    from ..read.yamlsrc import YamlError, YMap, parse_yaml, to_python, walk_path

    shown = display_path(path)   # messages name the file relative to the working directory

    def whole(_parts: tuple, _value: bool = False) -> Span:
        return Span(shown, 1, 1, 1, 1)

    try:
        if text is None:
            text = read_text(path, shown).text
        root = parse_yaml(text, shown)
        data = to_python(root)
    except ReadError as err:
        raise ConfigError(f"{shown}:1:1: {err}") from None
    except YamlError as err:
        where = f"{shown}:{err.span.line}:{err.span.col}" if err.span else f"{shown}:1:1"
        raise ConfigError(f"{where}: {err}") from None
    except RecursionError:
        raise ConfigError(f"{shown}:1:1: YAML nesting is too deep to read") from None
    if root is None:
        return {}, whole
    if not isinstance(root, YMap):
        raise ConfigError(f"{shown}:1:1: the configuration must be a mapping")
    if root.duplicates:
        first, again = root.duplicates[0]
        raise ConfigError(f"{shown}:{again.span.line}:{again.span.col}: duplicate key '{again.text}' "
                          f"(first at line {first.span.line})")

    top: dict = {}
    for k, _ in root.items:  # one pass: a position is looked up per key, of which there may be many
        hk = k.value if isinstance(k.value, (str, int, float, bool, type(None))) else k.text
        top[hk] = k

    def pos(parts: tuple, value: bool = False) -> Span:
        """The span of the key ``parts[0]``; with more parts, of the entry they name (a list
        item, a mapping key) when there is one, else of the key; with ``value``, of the value
        the parts name (a list item, the value of a key)."""
        if not parts:
            return whole(parts)
        key = top.get(parts[0])
        if key is None:
            return whole(parts)
        if value:
            node = walk_path(root, parts)
            if node is not None:
                return node.span
        if len(parts) > 1:
            parent = walk_path(root, parts[:-1])
            if isinstance(parent, YMap) and parent.key(parts[-1]) is not None:
                return parent.key(parts[-1]).span
            node = walk_path(root, parts)
            if node is not None:
                return node.span
        return key.span

    return data, pos


def _toml(path: str, text: bytes | None = None):
    import tomllib

    from ..read.paths import display_path
    from ..read.safeio import ReadError, read_bytes

    shown = display_path(path)   # messages name the file relative to the working directory

    try:
        if text is None:  # safeio: a regular file of at most 10 MiB; a FIFO or device is never opened
            text = read_bytes(path)
        data = tomllib.loads(text.decode("utf-8"))
    except tomllib.TOMLDecodeError as err:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
        raise ConfigError(f"{shown}:{m.group(1)}:{m.group(2)}: {err}" if m else f"{shown}:1:1: {err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"{shown}:1:1: invalid UTF-8 at byte offset {err.start}; save it as UTF-8") from None
    except (OSError, ReadError) as err:
        raise ConfigError(f"{shown}:1:1: {err}") from None
    except RecursionError:
        raise ConfigError(f"{shown}:1:1: TOML nesting is too deep to read") from None
    if os.path.basename(path) == "pyproject.toml":
        tool = data.get("tool") if isinstance(data.get("tool"), dict) else {}
        section = tool.get("cfglint", {})
    else:  # a cfglint.toml of its own: the keys are at the top level
        section = data
    lines = text.decode("utf-8").split("\n")
    start = next((i for i, line in enumerate(lines) if re.match(r"^\s*\[tool\.cfglint\]", line)), 0)
    keys: dict[str, Span] = {}  # key -> its first line in the section, found in one pass
    for i in range(start + 1, len(lines)):
        if re.match(r"^\s*\[", lines[i]):
            break
        m = re.match(r'^(\s*)(?:"([^"]*)"|\'([^\']*)\'|([A-Za-z0-9_-]+))\s*=', lines[i])
        if m:
            key = next(g for g in m.group(2, 3, 4) if g is not None)
            col = len(m.group(1)) + 1
            keys.setdefault(key, Span(shown, i + 1, col, i + 1, col + len(m.group(0).rstrip("= \t")) - len(m.group(1))))

    def pos(parts: tuple, _value: bool = False) -> Span:
        """The span of the key ``parts[0]`` (TOML positions are known per key line only)."""
        if parts and str(parts[0]) in keys:
            return keys[str(parts[0])]
        return Span(shown, start + 1, 1, start + 1, 1)

    return section, pos


# --- nested configurations ----------------------------------------------------------------------

def nested_configs(root: Config, root_dir: str, files: Iterable[str],
                   display: Callable[[str], str]) -> tuple[list[Config], list[Finding]]:
    """The nested configurations that govern ``files`` (paths of linted files or directories):
    every configuration file in a directory strictly below ``root_dir`` on the way up from one of
    them (stopping at ``root_dir`` or an ancestor of it), except ``root``'s own file. Returns the
    configurations that set something ``root`` allows (each restricted to what it allows) and a
    CFG001 finding for each thing one tried beyond that, at its position (``display`` turns a
    path into the path findings show). Never raises for a bad file: it is a finding."""
    if not root.read_nested:
        return [], []
    root_dir = os.path.abspath(root_dir)
    own = os.path.realpath(root.path) if root.path else None
    dirs: set[str] = set()
    seen: set[str] = set()
    for p in files:
        ap = os.path.abspath(p)
        d = ap if os.path.isdir(ap) else os.path.dirname(ap)
        while d not in seen:
            seen.add(d)
            if inside(root_dir, d):  # the root directory or above: the root configuration's ground
                break
            dirs.add(d)
            parent = os.path.dirname(d)
            if parent == d:
                break
            d = parent
    configs: list[Config] = []
    findings: list[Finding] = []
    for d in sorted(dirs):
        for path in _nested_candidates(d):
            if own is not None and os.path.realpath(path) == own:
                continue
            cfg, found = _load_nested(path, display(path), root)
            findings += found
            if cfg is not None:
                configs.append(cfg)
    return configs, findings


def _nested_candidates(d: str) -> list[str]:
    """Configuration files in ``d``; a symbolic link named like one is a candidate too (it is
    reported, never followed)."""
    out = []
    for name in CONFIG_NAMES:
        path = os.path.join(d, name)
        if os.path.islink(path):
            out.append(path)
        elif name == ".cfglint.yaml" and os.path.isfile(path):
            out.append(path)
        elif name == "pyproject.toml" and os.path.isfile(path) and _has_tool_section(path, NESTED_MAX_BYTES):
            out.append(path)
    return out


def _load_nested(path: str, shown: str, root: Config) -> tuple[Config | None, list[Finding]]:
    """One nested configuration, restricted to what ``root`` allows, and the CFG001 findings on it.
    No message quotes the file's text (it is the contributor's): only known key and rule names."""
    from ..checks import all_rules

    rules = all_rules()
    kind = "TOML" if path.endswith(".toml") else "YAML"
    where_root = _root_where(root)

    level = rules["CFG001"].level if "CFG001" in rules else "error"

    def finding(span: Span, message: str) -> Finding:
        end_col = span.end_col if span.end_line > span.line else max(span.end_col, span.col + 1)
        return Finding("CFG001", message, Span(shown, span.line, span.col, span.end_line, end_col), level=level)

    def whole(message: str) -> list[Finding]:
        return [finding(Span(shown, 1, 1, 1, 1), message)]

    try:
        st = os.lstat(path)
    except OSError:
        return None, []
    if stat.S_ISLNK(st.st_mode):
        return None, whole("this configuration below the root directory is a symbolic link; it is not followed "
                           "or read, and has no effect (a nested configuration is a regular file)")
    if not stat.S_ISREG(st.st_mode) or st.st_size > NESTED_MAX_BYTES:
        return None, whole(f"this configuration below the root directory is not a regular file of at most "
                           f"{NESTED_MAX_BYTES} bytes; it is not read and has no effect")
    from ..read.safeio import ReadError, read_bytes

    try:
        raw = read_bytes(path, NESTED_MAX_BYTES)  # safeio: regular file, O_NOFOLLOW | O_NONBLOCK
        if kind == "TOML":
            data, pos = _toml(path, raw)
        else:
            data, pos = _yaml(path, raw.decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, ValueError, ReadError):
        return None, whole(f"this configuration below the root directory cannot be read as UTF-8 {kind}; "
                           f"it has no effect")
    except ConfigError as err:
        m = re.match(r".*:(\d+):(\d+): ", str(err))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (1, 1)
        return None, [finding(Span(shown, line, col, line, col + 1),
                              f"this configuration below the root directory is not valid {kind} (or not a "
                              f"mapping, or repeats a key); it has no effect")]
    if not isinstance(data, dict):
        return None, whole("this configuration below the root directory is not a table / mapping; it has no effect")
    cfg = Config(path=path, scope=os.path.dirname(os.path.abspath(path)))
    findings: list[Finding] = []
    more = 0

    def add(parts: tuple, message: str) -> None:
        nonlocal more
        if len(findings) < NESTED_MAX_FINDINGS:
            findings.append(finding(pos(parts), message))
        else:
            more += 1

    accepted = False
    for key, value in data.items():
        span = pos((key,))
        if not isinstance(key, str) or key not in KEYS:
            add((key,), f"unknown key in a configuration below the root directory; it is ignored "
                        f"(known keys: {', '.join(KEYS)})")
            continue
        if key == "allow-nested":
            add((key,), f"'allow-nested' is ignored in a configuration below the root directory: "
                        f"only the root configuration{where_root} grants nested configurations keys")
            continue
        if key not in root.allow_nested:
            if root.path:
                allowed = ", ".join(root.allow_nested) if root.allow_nested else "nothing"
                why = f"the root configuration{where_root} allows nested configurations {allowed} (allow-nested)"
            else:
                why = "there is no root configuration, and without one nested configurations may set nothing"
            add((key,), f"'{key}' in a configuration below the root directory is ignored: {why}; "
                        f"make the change in {'it' if root.path else 'a configuration at the root directory'}, "
                        f"or remove the key")
            continue
        try:
            if _too_big(value):
                raise ConfigError(f"{shown}:{span.line}:{span.col}: more than {NESTED_MAX_ENTRIES} entries")
            _set(cfg, key, value, lambda *_: f"{shown}:{span.line}:{span.col}", list(rules))
        except ConfigError:
            add((key,), f"'{key}' in a configuration below the root directory has a value that is not valid "
                        f"(see the README's configuration section; at most {NESTED_MAX_ENTRIES} entries, globs of at "
                        f"most {NESTED_MAX_ENTRIES * 10} characters); it is ignored")
            continue
        _protected_entries(key, value, add, rules)
        accepted = True
    if more:
        findings.append(finding(Span(shown, 1, 1, 1, 1), f"{more} more problem(s) in this configuration below the root "
                                                         f"directory, not listed; each is ignored"))
    return (cfg if accepted else None), findings


def _too_big(value) -> bool:
    """Whether a nested value has more entries than cfglint takes from a nested configuration (a
    bound on the work every finding costs: each glob is matched against each finding's path)."""
    if isinstance(value, dict):
        return len(value) > NESTED_MAX_ENTRIES or any(
            (isinstance(k, str) and len(k) > NESTED_MAX_ENTRIES * 10) or _too_big(v) for k, v in value.items())
    return isinstance(value, list) and len(value) > NESTED_MAX_ENTRIES


def _root_where(root: Config) -> str:
    if not root.path:
        return ""
    from ..read.paths import display_path

    return f" ({display_path(root.path)})"


def _protected_entries(key: str, value, add: Callable[[tuple, str], None], rules) -> None:
    """CFG001 (through ``add(parts, message)``) for each entry of an allowed nested key that would
    drop or lower a PROTECTED rule (such entries have no effect on it: :meth:`Config.apply` keeps
    those rules)."""

    def covered(selector: str) -> list[str]:
        return [r for r in PROTECTED if rule_matches(r, [str(selector).upper()])]

    def say(parts: tuple, ids: list[str]) -> None:
        names = ", ".join(f"{r} ({rules[r].name})" if r in rules else r for r in ids)
        one = len(ids) == 1
        add(parts, (f"a configuration below the root directory cannot drop or lower {names}: "
                    f"this entry of '{key}' does not apply to {'it' if one else 'them'}; "
                    f"{'it stays' if one else 'they stay'} reported at {'its' if one else 'their'} own level"))

    if key == "ignore":
        for i, sel in enumerate(value):
            ids = covered(sel)
            if ids:
                say((key, i), ids)
    elif key == "per-file-ignores":
        for glob, sels in value.items():
            for i, sel in enumerate(sels):
                ids = covered(sel)
                if ids:
                    say((key, glob, i), ids)
    elif key == "levels":
        for sel, lvl in value.items():
            ids = [r for r in covered(sel) if r in rules and LEVELS.index(lvl) < LEVELS.index(rules[r].level)]
            if ids:
                say((key, sel), ids)
