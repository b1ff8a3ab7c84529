"""ENV001: the engines' own environment variables against the release a launch runs.

The variables each release reads are compiled from the engines' packages (rules/releases/:
vLLM ``vllm/envs.py``, SGLang ``sglang/srt/environ.py`` and its ``os.environ`` / ``get_bool_env_var``
reads, Dynamo's ``DYN_*`` reads in Python). A variable an engine no longer reads is ignored
without a word: the launch runs with the default instead.
"""

from __future__ import annotations

import re

from ..deploy.release import engines_of
from ..knowledge import versions
from ..model import Finding
from .base import Context, rule

# which engine a variable's prefix belongs to; Dynamo's Rust runtime reads DYN_* names no Python
# source states, so a DYN_* name is never called unknown
PREFIXES = (("VLLM_", "vllm"), ("SGLANG_", "sglang"), ("SGL_", "sglang"), ("DYN_", "dynamo"))
NAMED_ONLY = frozenset({"dynamo"})
_PREFIXES = tuple(prefix for prefix, _ in PREFIXES)   # engines whose list of variables is not complete


def _engine_of(name: str) -> str | None:
    return next((e for prefix, e in PREFIXES if name.startswith(prefix)), None)


def _flag_for(ctx: Context, engine: str, name: str, tables: tuple[str, ...], release: str | None) -> str | None:
    """The flag a variable's setting moved to, by name (VLLM_ALL2ALL_BACKEND -> --all2all-backend),
    when the launcher has it at ``release``."""
    stem = re.sub(r"^(VLLM|SGLANG|SGL|DYN)_", "", name).lower().replace("_", "-")
    for t in tables:
        if t.split(".", 1)[0] != engine:
            continue
        reg = ctx.kb.registry(t, release)
        if reg is not None and f"--{stem}" in reg.primary:
            return reg.primary[f"--{stem}"]
    return None


@rule("ENV001", "engine-variable", "error",
      "An engine environment variable the release the launch runs does not read, or another engine's.",
      "Engines read their settings from flags and from their own environment variables (VLLM_*, "
      "SGLANG_*, DYN_*). A variable an engine stopped reading, or never read (a misspelling), or one "
      "of another engine (VLLM_ATTENTION_BACKEND on an SGLang server) changes nothing: the server "
      "starts with its default and the published configuration claims a setting that did not run. "
      "Some variables were replaced by a flag (vLLM VLLM_ALL2ALL_BACKEND by --all2all-backend from "
      "0.16.0); the message names it. A variable removed in the release the launch runs is an error; "
      "one no release cfglint holds reads, or one the newest release no longer reads when the release "
      "is not declared, is a warning; a variable and its flag set to different values are a warning "
      "(which one wins differs by engine).",
      ("rules/releases/vllm.yaml env (vllm/envs.py per release)",
       "rules/releases/sglang.yaml env (sglang/srt/environ.py and os.environ reads per release)",
       "rules/releases/dynamo.yaml env (DYN_* reads in components/src/dynamo per release)"))
def check_engine_variables(ctx: Context):
    seen: set = set()
    unread: dict[str, list] = {}   # engine label -> variables no release reads, the release not known
    yield from _variables(ctx, seen, unread)
    for label, names in unread.items():
        ctx.not_checked("engine variables (ENV001)",
                        f"{', '.join(dict.fromkeys(n for n, _ in names))}: read by no {label} release cfglint holds, and the "
                        f"release the launch runs is not known", names[0][1])


def _name_span(ctx: Context, name: str, span, split: dict | None = None):
    """The span of the variable's name: where the value is written ``NAME=value`` on its line
    (``-e NAME=value``, ``export NAME=value``, ``NAME=value cmd``), or a Kubernetes env entry's
    ``name: NAME`` next to its ``value:``: the finding is about the name. Else the value's span."""
    if span is None or span.line < 1:
        return span
    split = {} if split is None else split    # display path -> its lines, split once per check run
    if span.path not in split:
        split[span.path] = next((tf.text.split("\n") for tf in ctx.sub.texts if tf.display == span.path), None)
    lines = split[span.path]
    if not lines or span.line > len(lines):
        return span
    start = span.col - 2 - len(name)          # 0-based column of the name, before its '='
    if start >= 0 and lines[span.line - 1][start:span.col - 1] == name + "=":
        return type(span)(span.path, span.line, start + 1, span.line, start + 1 + len(name))
    # a Kubernetes env entry (- name: NAME / value: ...): the name's line, next to its value's
    near = re.compile(r"^\s*(?:-\s+)?name:\s*([\"']?)" + re.escape(name) + r"\1\s*(?:#.*)?$")
    for n in (span.line - 1, span.line + 1, span.line - 2, span.line + 2):
        if 1 <= n <= len(lines) and (m := near.match(lines[n - 1])):
            col = m.start(1) + len(m.group(1)) + 1
            return type(span)(span.path, n, col, n, col + len(name))
    return span


def _variables(ctx: Context, seen: set, unread: dict):
    split: dict = {}
    for p in ctx.deployment.processes:
        if p.kind != "engine" and p.kind != "frontend":
            continue
        engines = engines_of(p.tables)
        env = p.env
        names = env.names_starting(_PREFIXES) if hasattr(env, "names_starting") else \
            [k for k in env if k.startswith(_PREFIXES)]
        for name in names:
            value = env[name]
            engine = _engine_of(name)
            data = ctx.kb.engine_releases(engine) if engine else None
            if data is None or (name, value.span) in seen:
                continue
            seen.add((name, value.span))
            known = data.env()
            entry = known.get(name)
            held = data.in_releases(entry) if entry else []
            if engine not in engines:
                labels = [r.label for e in engines if (r := ctx.kb.engine_releases(e)) is not None]
                if held and labels:
                    yield Finding("ENV001", f"{name} is a {data.label} variable; this process runs "
                                            f"{' and '.join(labels)}, which does not read it", _name_span(ctx, name, value.span, split), level="warning")
                continue
            launch = p.releases.get(engine)
            release = launch.release if launch is not None else None
            if entry is None:
                if engine in NAMED_ONLY:
                    continue
                if release is not None:
                    import difflib

                    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.85)
                    yield Finding("ENV001", f"no {data.label} release cfglint holds ({data.span()}) reads {name}"
                                            + (f": did you mean {close[0]}?" if close else ""),
                                  _name_span(ctx, name, value.span, split), level="warning")
                else:   # a build of its own may read it (the release is not known): say it was not checked
                    unread.setdefault(data.label, []).append((name, value.span))
                continue
            at = release if release is not None else data.releases[-1]
            if at in held:
                yield from _against_flag(ctx, p, engine, name, value, release)
                continue
            if engine in NAMED_ONLY:
                continue
            flag = _flag_for(ctx, engine, name, p.tables, release)
            ranges = versions.ranges(held, data.releases)
            later = data.releases.index(held[-1]) < data.releases.index(at)
            what = f"no longer reads {name} (read in {ranges})" if later else f"does not read {name} yet (from {held[0]})"
            hint = f"; the setting is the flag {flag} there" if flag else ""
            if release is not None:
                shown = versions.leading(launch.resolution.version or "") or release
                yield Finding("ENV001", f"{data.label} {shown} {what}: the value is ignored{hint}", _name_span(ctx, name, value.span, split))
            else:
                why = launch.resolution.note if launch is not None and launch.resolution.how != "unknown" else \
                    "the release the launch runs is not declared"
                yield Finding("ENV001", f"{data.label} {data.releases[-1]}, the newest release, {what}, and {why}{hint}",
                              _name_span(ctx, name, value.span, split), level="warning")


def _against_flag(ctx: Context, p, engine: str, name: str, value, release: str | None):
    """A variable and the flag for the same setting, both set, to different values."""
    flag = _flag_for(ctx, engine, name, p.tables, release)
    if flag is None or value.value is None:
        return
    arg = next((a for a in p.args if a.name == flag and a.value is not None), None)
    if arg is None or str(arg.value.value).strip().lower() == str(value.value).strip().lower():
        return
    yield Finding("ENV001", f"{name}={value.value} and {flag} {arg.value.value} set the same setting to different "
                            f"values", value.span, level="warning", related=[(arg.value.span, f"{flag} {arg.value.value}")])
