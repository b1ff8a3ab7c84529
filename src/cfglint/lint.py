"""The whole pipeline for a list of paths: discover -> load -> extract -> check."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import partial

from . import suppress
from .checks import all_rules, run_checks
from .discover import MANIFEST, discover, display_path
from .extract import extract
from .knowledge import knowledge
from .load import Submission, load_loose_file, load_submission
from .model import Finding, Span
from .textfile import MAX_BYTES


@dataclass(slots=True)
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)   # display path -> lines
    paths: dict[str, str] = field(default_factory=dict)           # display path -> real path
    units: int = 0
    missing: list[str] = field(default_factory=list)


def lint_unit(sub: Submission, kb=None, require_reason: bool = False) -> list[Finding]:
    """Findings of one loaded submission or loose file (load-stage findings included), inline
    suppressions applied (suppressed findings are kept, marked)."""
    kb = kb or knowledge()
    deployment = extract(kb, sub.manifest, sub.launches, sub.configs)
    findings = list(sub.findings) + run_checks(sub, deployment, kb)
    commands = {path: [(c.span.line, c.span.end_line) for c in parsed.commands]
                for path, parsed, _role, is_args in sub.launches if not is_args}
    findings += suppress.apply(findings, sub.texts, require_reason, commands)
    rules = all_rules()
    for f in findings:
        if f.level is None:
            f.level = rules[f.rule_id].level if f.rule_id in rules else "error"
    return findings


def _with_unlisted(jobs, named: list[str], read: set[str], load_loose):
    """The jobs, then each file given on the command line inside a submission that its manifest
    does not name (a new script, say): linted on its own so it is not silently skipped."""
    yield from jobs
    for path in named:
        if os.path.basename(path) != MANIFEST and os.path.realpath(path) not in read:
            yield load_loose, path


def _mask_secrets(result: LintResult) -> None:
    """Blank every credential a finding located in the source lines kept for output, and in
    every finding's message and related messages, so no report (context lines, messages that
    quote a value, fingerprints) can show it."""
    secrets: set[str] = set()
    for f in result.findings:
        s = f.span
        lines = result.sources.get(s.path)
        if f.secret and lines and s.line == s.end_line and 1 <= s.line <= len(lines):
            line = lines[s.line - 1]
            secret = line[s.col - 1: s.end_col - 1]
            if len(secret) >= 4:
                secrets.add(secret)
            lines[s.line - 1] = line[: s.col - 1] + "*" * (s.end_col - s.col) + line[s.end_col - 1:]
    if not secrets:
        return
    pattern = re.compile("|".join(re.escape(x) for x in sorted(secrets, key=len, reverse=True)))
    hide = lambda text: pattern.sub(lambda m: "*" * len(m.group(0)), text)  # noqa: E731
    for f in result.findings:
        if not f.secret:
            f.message = hide(f.message)
        f.related = [(span, hide(text)) for span, text in f.related]


def lint_paths(paths: list[str], extra_knowledge: tuple[str, ...] = (), require_reason: bool = False,
               max_bytes: int = MAX_BYTES) -> LintResult:
    """Lint ``paths`` (submission directories, trees of them, single files). Findings are
    sorted, deduplicated and have credentials masked in ``sources``; ``missing`` lists paths
    that do not exist. Never raises for bad input: a crash on one unit is an IO001 on it."""
    targets = discover(paths)
    result = LintResult(missing=list(targets.missing))
    seen: set[tuple] = set()
    kb = knowledge(extra_knowledge)
    load_loose = partial(load_loose_file, max_bytes=max_bytes)
    jobs = [(partial(load_submission, kb=kb, max_bytes=max_bytes), d) for d in targets.submissions] + \
        [(load_loose, f) for f in targets.loose_files]
    read: set[str] = set()
    for load, path in _with_unlisted(jobs, targets.named_in_submissions, read, load_loose):
        result.units += 1
        try:
            sub = load(path)
            findings = lint_unit(sub, kb, require_reason)
        except Exception as err:  # a bug in cfglint: report it on this unit, check the others
            shown = display_path(os.path.join(path, MANIFEST) if os.path.isdir(path) else path)
            findings = [Finding("IO001", f"cfglint internal error while checking {shown}: "
                                f"{type(err).__name__}: {err}; please report this", Span(shown, 1, 1, 1, 1), level="error",
                                internal=True)]
            sub = None
        if sub is not None:
            for tf in sub.texts:
                result.sources[tf.display] = tf.lines
                result.paths[tf.display] = tf.path
                read.add(os.path.realpath(tf.path))
        for f in findings:
            key = (f.rule_id, f.span, f.message)
            if key in seen:
                continue
            seen.add(key)
            result.findings.append(f)
    _mask_secrets(result)
    result.findings.sort(key=Finding.sort_key)
    return result


__all__ = ["LintResult", "lint_paths", "lint_unit"]
