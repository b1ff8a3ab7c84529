"""Graph launchers: a launcher that takes the engine's flags from a config of its own, not from
its command line (``rules/engines.yaml`` ``launchers.graph_launchers``): the Dynamo SDK's
``dynamo serve MODULE:SERVICE`` of Dynamo <= 0.3.x.

Where that config is in the linted files (the launch's ``DYN_DEPLOYMENT_CONFIG``, a Dynamo
operator manifest's ``spec.envs``; a published ``-f`` / ``--config-file`` YAML), the started
service's section becomes its engine's argument list as the launcher builds it, each word at the
key or value it comes from (inside the environment variable's JSON when its characters can be
placed), so the one extraction path (:mod:`cfglint.deploy.extract`) reads it as any command line.
Otherwise :func:`service_launch` says why not, for COV001; a config that does not parse is a
finding of its own (:attr:`ServiceRead.errors`), never a traceback.

Sources (``rules/engines.yaml`` ``config_source``): ai-dynamo==0.3.2 dynamo/sdk/cli/utils.py
resolve_service_config (DYN_DEPLOYMENT_CONFIG, yaml.safe_load of its value, is the config when set;
else the -f YAML; then the ``--Service.key value`` words of the command line on top) and
dynamo/sdk/lib/config.py ServiceConfig.as_args (the section without ``ServiceArgs``, the ``Common``
keys it lists in ``common-configs`` first; true -> ``--key``, false -> nothing or a ``--no-`` flag,
a mapping -> ``--key <json>``, else ``--key str(value)``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from ..model import Located, Span
from ..read.shell import Word
from ..read.yamlsrc import YamlError, YMap, YNode, YScalar, parse_yaml, to_python

MAX_ARGS = 512   # words a service section may make (a section is a handful of keys)


@dataclass(slots=True)
class ServiceLaunch:
    """The engine a graph service runs: its ``name`` (where written), its arguments as the
    launcher builds them, its ``services`` entry (engine, flag registries, role) and the engine
    release the launcher installs (engine -> (release, why), rules/engines.yaml ``engine_releases``)."""

    name: Located
    words: list[Word]
    spec: dict
    releases: dict[str, tuple[Located, str]] = field(default_factory=dict)


@dataclass(slots=True)
class ServiceRead:
    """What :func:`service_launch` found: the launch, or why not (for COV001; None when no service
    runs at all, ``--dry-run``), and the config's errors (message, span) for IO001."""

    launch: ServiceLaunch | None = None
    why: str | None = None
    errors: list[tuple[str, Span]] = field(default_factory=list)
    # with a launch: what else the command starts that is not read (the services the started one
    # depends on, when no --service-name limits it to that one), for COV001
    besides: str | None = None


def _placer(text: str, where: list[tuple[int, int]] | None, fallback: Span) -> Callable[[Span], Span]:
    """Span in ``text`` (as :func:`parse_yaml` gives it) -> span in the file, by the positions of
    ``text``'s characters (``where``); ``fallback`` (the whole value) when they are not known."""
    if where is None or len(where) != len(text):
        return lambda _s: fallback
    starts = [0] + [i + 1 for i, c in enumerate(text) if c == "\n"]

    def place(s: Span) -> Span:
        if s.line < 1 or s.end_line > len(starts):
            return fallback
        a, b = starts[s.line - 1] + s.col - 1, starts[s.end_line - 1] + s.end_col - 1
        if not 0 <= a < b <= len(where):
            return fallback
        (l1, c1), (l2, c2) = where[a], where[b - 1]
        return Span(fallback.path, l1, c1, l2, c2 + 1)
    return place


def _override_value(text: str) -> Any:
    """A ``--Service.key VALUE`` word's value as _parse_service_arg reads it: JSON, else a whole
    number, a decimal, true / false, or the text."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    if text.isdigit():
        return int(text)
    if text.replace(".", "", 1).isdigit() and text.count(".") <= 1:
        return float(text)
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


@dataclass(slots=True)
class _Command:
    target: Word | None = None
    options: dict[str, Word | None] = field(default_factory=dict)
    overrides: list[tuple[Word, Word]] = field(default_factory=list)   # (--Service.key, value)
    exits: bool = False


def _read_command(entry: dict, words: list[Word]) -> _Command:
    """``dynamo serve`` 's own options, its graph argument and the ``--Service.key value`` overrides."""
    options = entry.get("options") or {}
    exits = set(entry.get("exits") or ())
    out = _Command()
    i = len(entry.get("words") or ())
    while i < len(words):
        w = words[i]
        name, eq, inline = w.text.partition("=")
        if w.text in exits:
            out.exits = True
        if name in options:
            if options[name] == "value" and not eq:
                out.options[name] = words[i + 1] if i + 1 < len(words) else None
                i += 2
                continue
            out.options[name] = Word(inline, inline, w.span, w.static) if eq else None
        elif w.text.startswith("--") and "." in name:
            if eq:
                out.overrides.append((Word(name, name, w.span, w.static), Word(inline, inline, w.span, w.static)))
            elif i + 1 < len(words):
                out.overrides.append((w, words[i + 1]))
                i += 1
        elif not w.text.startswith("-") and out.target is None:
            out.target = w
        i += 1
    return out


def service_launch(entry: dict, words: list[Word], env: Mapping[str, Word],
                   find_config: Callable[[str], Any]) -> ServiceRead:
    """The engine launch of the graph service ``words`` (``dynamo serve ...``, wrappers stripped)
    starts, read from its service config (see the module docstring), or why it cannot be read.
    ``env``: the command's environment; ``find_config``: a published config file by the path a
    flag names (a ConfigFile with ``root``, or None)."""
    cmd = _read_command(entry, words)
    if cmd.exits:
        return ServiceRead()
    name, alone = _service_name(entry, cmd, env)
    if isinstance(name, str):
        return ServiceRead(why=name)
    # serve's --service-name: "Only serve the specified service. Don't serve any dependencies of this service."
    deps = None if alone else (f"without {entry.get('service_flag')} it also starts every service {name.value} depends "
                               f"on, which the graph module (Python) defines and cfglint does not read")
    services = entry.get("services") or {}
    spec = services.get(name.value)
    if not isinstance(spec, dict):
        return ServiceRead(why=f"service {name.value} is not one whose engine cfglint knows (it reads the engine "
                               f"flags of {', '.join(sorted(services))} of Dynamo's examples/llm graphs, which run "
                               f"vLLM)" + (f", and {deps}" if deps else ""))
    out = ServiceRead(besides=deps)
    got = _config(entry, cmd, env, find_config, out.errors)
    if isinstance(got, str):
        out.why = got
        return out
    root, where = got
    section = root.get(str(name.value))
    if section is None:
        out.why = (f"the service config ({where}) has no section {name.value}: the service starts with no "
                   f"engine flags of its own (the engine's defaults), which cfglint does not check as a launch")
        return out
    if not isinstance(section, YMap):
        out.errors.append((f"section {name.value} of the service config ({where}) is not a mapping of flags: the "
                           f"Dynamo SDK cannot build {name.value}'s arguments from it", section.span))
        out.why = f"section {name.value} of the service config ({where}) is not a mapping"
        return out
    common = root.get(str(entry.get("common_section") or "Common"))
    pairs = _pairs(entry, section, common if isinstance(common, YMap) else None)
    why = _apply_overrides(pairs, cmd.overrides, str(name.value), str(entry.get("common_section") or "Common"),
                           section, common if isinstance(common, YMap) else None, entry)
    if why is not None:
        out.why = why
        return out
    args = _arguments(entry, pairs)
    if len(args) > MAX_ARGS:
        out.why = f"section {name.value} of the service config ({where}) makes more than {MAX_ARGS} arguments"
        return out
    at = words[0].span
    releases = {str(e): (Located(str(r.get("release")), at), str(r.get("said") or ""))
                for e, r in (entry.get("engine_releases") or {}).items() if isinstance(r, dict) and r.get("release")}
    out.launch = ServiceLaunch(name, args, spec, releases)
    return out


def _service_name(entry: dict, cmd: _Command, env: Mapping[str, Word]) -> tuple[Located | str, bool]:
    """(the service the command starts (``--service-name``, ``DYNAMO_SERVICE_NAME``, else the
    SERVICE of MODULE:SERVICE) or why it is not known, whether it starts that service alone)."""
    flag = str(entry.get("service_flag") or "")
    given = cmd.options.get(flag) if flag in cmd.options else env.get(str(entry.get("service_env") or ""))
    if given is not None and given.text:
        if not given.static:
            return f"the service it starts ({flag}) is known only at run time", True
        return Located(given.text, given.span), True
    target = cmd.target
    if target is None or not target.static or ":" not in target.text:
        return "the graph names no service (MODULE:SERVICE), or only at run time", False
    return Located(target.text.rsplit(":", 1)[1], target.span), False


def _config(entry: dict, cmd: _Command, env: Mapping[str, Word], find_config,
            errors: list[tuple[str, Span]]) -> tuple[YMap, str] | str:
    """(the service config, how a message names it), or why it is not read."""
    var = str(entry.get("config_env") or "")
    word = env.get(var) if var else None
    if word is not None:
        if not word.static:
            return f"{var} is set to a value known only at run time"
        where = f"{var} at line {word.span.line}"
        try:
            root = parse_yaml(word.text, word.span.path)
        except YamlError as err:
            place = _placer(word.text, word.where, word.span)
            errors.append((f"{var} does not parse as YAML or JSON ({err}): the Dynamo SDK logs 'Failed to parse "
                           f"{var}' and runs every service of the graph with an empty config, so its engines start "
                           f"with their defaults (vLLM's default model) instead of these flags",
                           place(err.span) if err.span is not None else word.span))
            return f"{var} (line {word.span.line}) does not parse"
        if not isinstance(root, YMap):
            errors.append((f"{var} is not a mapping of service sections (Frontend, VllmWorker ...): the Dynamo SDK "
                           f"cannot read a service's config from it", word.span))
            return f"{var} (line {word.span.line}) is not a mapping of service sections"
        return _placed(root, _placer(word.text, word.where, word.span)), where
    for flag in entry.get("config_flags") or ():
        if flag in cmd.options:
            value = cmd.options[flag]
            if value is None or not value.static:
                return f"its config file ({flag}) is known only at run time"
            cfg = find_config(value.text)
            if cfg is None or not isinstance(getattr(cfg, "root", None), YMap):
                return f"its config file {value.text} ({flag}) is not in the linted files"
            cfg.used_by += 1
            return cfg.root, f"{cfg.display}"
    return (f"no service config is in the file ({var} is not set in the launch's environment, and no "
            f"{' / '.join(entry.get('config_flags') or ())} file is given)")


def _placed(node: YNode, place: Callable[[Span], Span]) -> Any:
    """``node`` with every span placed in the file."""
    if isinstance(node, YScalar):
        return YScalar(node.value, node.text, place(node.span), node.tag)
    if isinstance(node, YMap):
        return YMap([(_placed(k, place), _placed(v, place)) for k, v in node.items], place(node.span),
                    tag=node.tag)
    return type(node)([_placed(i, place) for i in node.items], place(node.span), node.tag)


# one argument source: (key as written, key span, value, value span)
_Pair = tuple[str, Span, Any, Span]


def _pairs(entry: dict, section: YMap, common: YMap | None) -> list[_Pair]:
    """The keys ServiceConfig.as_args turns into arguments, in its order: the ``Common`` keys the
    section lists in ``common-configs`` (unless it sets them), then the section's own keys,
    without ``ServiceArgs`` and ``common-configs``."""
    ckey = str(entry.get("common_key") or "common-configs")
    skip = str(entry.get("service_args_key") or "ServiceArgs")
    own = {k.value for k, _v in section.items}
    out: list[_Pair] = []
    listed = section.get(ckey)
    for item in getattr(listed, "items", None) or []:
        if common is None or not isinstance(item, YScalar) or item.value in own:
            continue
        key = common.key(str(item.value))
        if key is not None and not any(p[0] == str(item.value) for p in out):
            out.append((str(key.value), key.span, to_python(common.get(str(item.value))), common.get(str(item.value)).span))
    seen: dict[str, int] = {}
    for k, v in section.items:
        text = str(k.value)
        if text == skip or text.endswith(ckey):
            continue
        if text in seen:   # a repeated key: the last value, at the first one's place (a dict's order)
            out[seen[text]] = (text, k.span, to_python(v), v.span)
            continue
        seen[text] = len(out)
        out.append((text, k.span, to_python(v), v.span))
    return out


def _apply_overrides(pairs: list[_Pair], overrides: list[tuple[Word, Word]], service: str, common_name: str,
                     section: YMap, common: YMap | None, entry: dict) -> str | None:
    """The command line's ``--<service>.key value`` (and ``--Common.key`` of a key the service
    lists) over ``pairs``, as resolve_service_config applies them; why not, for a value known only
    at run time or a nested key other than ServiceArgs'."""
    skip = str(entry.get("service_args_key") or "ServiceArgs")
    ckey = str(entry.get("common_key") or "common-configs")
    listed = [str(i.value) for i in getattr(section.get(ckey), "items", None) or [] if isinstance(i, YScalar)]
    own = {str(k.value) for k, _v in section.items}
    for flag, value in overrides:
        parts = flag.text[2:].split(".")
        if parts[0] not in (service, common_name) or len(parts) < 2:
            continue
        if parts[1] == skip or parts[1].endswith(ckey):
            continue
        if parts[0] == common_name and (parts[1] not in listed or parts[1] in own or common is None):
            continue
        if not flag.static or not value.static:
            return f"its command line sets {flag.text} to a value known only at run time"
        if len(parts) > 2:
            return f"its command line sets a nested key ({flag.text}), which cfglint does not merge"
        got = (parts[1], flag.span, _override_value(value.text), value.span)
        at = next((i for i, p in enumerate(pairs) if p[0] == parts[1]), None)
        if at is None:
            pairs.append(got)
        else:
            pairs[at] = got
    return None


def _arguments(entry: dict, pairs: list[_Pair]) -> list[Word]:
    """ServiceConfig.as_args of ``pairs``: the words, each at its key or value."""
    false_flags = entry.get("false_flags") or {}
    out: list[Word] = []
    for key, kspan, value, vspan in pairs:
        flag = f"--{key}"
        if isinstance(value, bool):
            if value:
                out.append(Word(flag, flag, kspan))
            elif key.replace("-", "_") in false_flags:
                neg = str(false_flags[key.replace("-", "_")])
                out.append(Word(neg, neg, kspan))
            continue
        text = json.dumps(value) if isinstance(value, dict) else str(value)
        out += [Word(flag, flag, kspan), Word(text, text, vspan)]
    return out
