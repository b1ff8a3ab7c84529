"""The whole pipeline for a list of paths: discover -> load -> extract -> check."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field

from . import suppress
from .checks import all_rules, run_checks
from .discover import MANIFEST, discover, display_path
from .extract import Deployment, extract
from .knowledge import knowledge
from .load import Submission, load_loose_file, load_submission, merge_related
from .model import Finding, Span
from .redact import mask_result, token_pattern
from .textfile import MAX_BYTES, TextFile


@dataclass(slots=True)
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)   # display path -> lines
    paths: dict[str, str] = field(default_factory=dict)           # display path -> real path
    files: dict[str, TextFile] = field(default_factory=dict)      # display path -> file as read, if it has fixes
    units: int = 0
    missing: list[str] = field(default_factory=list)
    nested: list = field(default_factory=list)  # nested configurations (config.Config) for Config.apply


def lint_unit(sub: Submission, kb=None, require_reason: bool = False) -> list[Finding]:
    """Findings of one loaded submission or loose file (load-stage findings included), inline
    suppressions applied (suppressed findings are kept, marked). Credentials are not masked
    yet: whatever is printed or written goes through :func:`lint_paths` (redact.py)."""
    return _lint_unit(sub, kb or knowledge(), require_reason)[0]


def _lint_unit(sub: Submission, kb, require_reason: bool) -> tuple[list[Finding], Deployment]:
    """:func:`lint_unit`'s findings and the deployment they were checked on."""
    deployment = extract(kb, sub.manifest, sub.launches, sub.configs)
    findings = list(sub.findings) + [
        Finding("IO001", "shell syntax error in this bash -c string (unbalanced quote, bracket or keyword?): "
                         "the shell refuses it, and the commands in it may be misread", span, level="warning")
        for span in deployment.shell_errors] + run_checks(sub, deployment, kb)
    merge_related(findings, sub)
    commands = {path: [(c.span.line, c.span.end_line) for c in parsed.commands]
                for path, parsed, _role, is_args in sub.launches if not is_args}
    findings += suppress.apply(findings, sub.texts, require_reason, commands)
    rules = all_rules()
    for f in findings:
        if f.level is None:
            f.level = rules[f.rule_id].level if f.rule_id in rules else "error"
    return findings, deployment


def _serves(sub: Submission, deployment: Deployment) -> bool:
    """True when a file linted on its own is a serving file: a worker argument file, an engine
    config (other YAML is dropped by :func:`load_loose_file`), or shell that starts an engine,
    frontend or router (``deployment``: the file's, as it was linted)."""
    if any(is_args for *_, is_args in sub.launches) or sub.configs:
        return True
    return bool(sub.launches) and bool(deployment.processes)


def _unlisted_finding(path: str, files_at: Span) -> Finding:
    shown = display_path(path)
    kind = "engine config" if path.lower().endswith((".yaml", ".yml")) else "launch file"
    return Finding("SUB003", f"{shown} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} in the submission directory that {files_at.path} does not list: "
                             f"it is linted on its own, but not as part of the submission; list it under "
                             f"files.{'configs' if kind == 'engine config' else 'launch'} or move it out",
                   Span(shown, 1, 1, 1, 1), level="warning", related=[(files_at, "the manifest's file list")])


def _orphan_finding(path: str) -> Finding:
    shown = display_path(path)
    folder = display_path(os.path.dirname(path)) or "."
    return Finding("SUB004", f"{folder} holds {os.path.basename(path)}, a launch file or engine config, but no "
                             f"{MANIFEST}: only file-level checks ran (no topology, declared-vs-launched or model "
                             f"checks); add a manifest (schemas/submission.schema.json) to make it a submission",
                   Span(shown, 1, 1, 1, 1), level="warning")


def _mask_secrets(result: LintResult, kb) -> None:
    """The choke point every string that leaves cfglint goes through (redact.py): credentials
    RED002 located are hidden in the source lines findings point at and in every message,
    related message and fix; then every long word of the messages is clipped (:func:`_clip`).
    Reports, SARIF fingerprints and baselines only ever see the result."""
    mask_result(result.findings, result.sources, token_pattern(kb.secrets))
    for f in result.findings:
        f.message = _clip(f.message)
        f.related = [(span, _clip(text)) for span, text in f.related]


def _nested(result: LintResult, paths: list[str], config) -> None:
    """Read the nested configurations that govern the linted files (config.nested_configs)."""
    from .config import Config, nested_configs, trust_root

    root = config if config is not None else Config()
    if not root.read_nested:
        return
    here = [p for p in paths if os.path.lexists(p)] or ["."]
    files = here + list(result.paths.values()) + sorted({f.span.path for f in result.findings})
    result.nested, found = nested_configs(root, root.root_dir or trust_root(here), files, display_path)
    result.findings += found


MAX_WORD = 200   # characters of one word (a value, a name, a path) a message quotes in full
_LONG_WORD = re.compile(r"\S{%d,}" % (MAX_WORD + 1))
# a value quoted in a message ('...'): the rules quote what they read with single quotes, and a
# value may hold spaces (one YAML alias of a 10 KB sentence in every field). An opening quote
# follows the start, a space or one of ( [ : = , and a closing quote ends a word: neither the
# apostrophe of "SGLang's" nor the text between two quoted values counts
_LONG_QUOTED = re.compile(r"(?<![^\s(\[:=,])'(?!\s)([^'\n]{%d,})'(?!\w)" % (MAX_WORD + 1))
MAX_MESSAGE = 4000  # characters of one message, whatever it quotes


def _clip(text: str) -> str:
    """``text`` with every quoted value and every word longer than MAX_WORD characters cut to its
    start and its length, and the whole cut at MAX_MESSAGE characters: messages quote values from
    the linted files, and a 1 MB model name must not make a 1 MB message (three times over, in
    every output format)."""
    text = _LONG_QUOTED.sub(lambda m: f"'{m.group(1)[:60]}...({len(m.group(1))} characters)'", text)
    text = _LONG_WORD.sub(lambda m: f"{m.group(0)[:60]}...({len(m.group(0))} characters)", text)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + f"...(message cut, {len(text)} characters)"


def lint_paths(paths: list[str], extra_knowledge: tuple[str, ...] = (), require_reason: bool = False,
               max_bytes: int = MAX_BYTES, private_ranges: tuple[str, ...] | None = None,
               config=None) -> LintResult:
    """Lint ``paths`` (submission directories, trees of them, single files). Findings are
    sorted, deduplicated and have credentials masked (redact.py) in their messages and in
    ``sources``; ``missing`` lists paths
    that do not exist. Never raises for bad input: a crash on one unit is an IO001 on it.

    ``config`` is the root configuration (:class:`cfglint.config.Config`; None: defaults, which
    allow nested configurations nothing). Configuration files below the run's root directory on
    the way to a linted file are read as nested ones: ``nested`` holds what they may set (for
    ``config.apply(findings, nested)``), and what they may not set is a CFG001 finding."""
    targets = discover(paths)
    result = LintResult(missing=list(targets.missing))
    seen: set[tuple] = set()
    kb = knowledge(extra_knowledge, private_ranges)
    roots = targets.roots  # path -> (directory its files must really lie in, its name): no link out is read

    def load_loose(path: str) -> Submission:
        within, name = roots.get(path, (None, None))
        return load_loose_file(path, max_bytes=max_bytes, within=within, within_name=name)

    def load_sub(path: str) -> Submission:
        return load_submission(path, kb=kb, max_bytes=max_bytes, tree=roots.get(path, (None,))[0])

    # (load, path, why): why is None, ("unlisted", manifest files span) or ("orphan", None)
    jobs: list[tuple] = [(load_sub, d, None) for d in targets.submissions] + \
        [(load_loose, f, None) for f in targets.loose_files]
    read: set[str] = set()
    queued: set[str] = set()
    orphans_reported: set[str] = set()
    later = [(load_loose, f, ("orphan", None)) for f in targets.orphan_files]  # SUB004 candidates
    i, tail = 0, False
    while i < len(jobs) or not tail:
        if i == len(jobs):
            # after the submissions: files named inside one that its manifest does not list, then
            # files in no submission; each linted on its own, once
            jobs += [(load_loose, p, None) for p in targets.named_in_submissions
                     if os.path.basename(p) != MANIFEST and os.path.realpath(p) not in read | queued]
            jobs += later
            tail = True
            continue
        load, path, why = jobs[i]
        i += 1
        if why is not None or load is load_loose:
            real = os.path.realpath(path)
            if real in read or (why is not None and real in queued):
                continue
            queued.add(real)
        result.units += 1
        try:
            sub = load(path)
            findings, deployment = _lint_unit(sub, kb, require_reason)
            serves = why is not None and _serves(sub, deployment)
            if serves and why[0] == "unlisted":
                if why[1] is not None:  # None: the manifest is unusable, its files are linted alone
                    findings.append(_unlisted_finding(path, why[1]))
            elif serves and os.path.dirname(path) not in orphans_reported:
                orphans_reported.add(os.path.dirname(path))
                findings.append(_orphan_finding(path))
            elif why is not None and why[0] == "orphan" and not serves:
                # a script outside every submission that starts no engine: no SUB004, but what it
                # leaks (a host path, a token) is reported as pre-commit, given the file, reports it
                findings = [f for f in findings if f.rule_id != "COV001"]
                if not findings:
                    result.units -= 1
                    continue
        except Exception as err:  # a bug in cfglint: report it on this unit, check the others
            shown = display_path(os.path.join(path, MANIFEST) if os.path.isdir(path) else path)
            findings = [Finding("IO001", f"cfglint internal error while checking {shown}: "
                                f"{type(err).__name__}: {err}; please report this", Span(shown, 1, 1, 1, 1), level="error",
                                internal=True)]
            sub = None
        if sub is not None:
            fixable = {f.span.path for f in findings if f.fix is not None}
            for tf in sub.texts:
                result.sources[tf.display] = tf.lines
                result.paths[tf.display] = tf.path
                if tf.display in fixable:
                    result.files[tf.display] = tf
                read.add(os.path.realpath(tf.path))
            for upath, files_at in sub.unlisted:
                if os.path.realpath(upath) not in queued:
                    roots.setdefault(upath, (sub.root, f"the submission directory {sub.display}"))
                    jobs.append((load_loose, upath, ("unlisted", files_at)))
        for f in findings:
            key = (f.rule_id, f.span, f.message)
            if key in seen:
                continue
            seen.add(key)
            result.findings.append(f)
    _nested(result, paths, config)
    _mask_secrets(result, kb)
    result.findings.sort(key=Finding.sort_key)
    return result


__all__ = ["LintResult", "lint_paths", "lint_unit"]
