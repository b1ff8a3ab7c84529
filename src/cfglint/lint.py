"""The whole pipeline for a list of paths: discover -> load -> extract -> check."""

from __future__ import annotations

import os
import re
import sys
from dataclasses import field

from .checks import all_rules, run_checks
from .deploy.extract import Deployment, extract
from .knowledge import knowledge
from .load.discover import MANIFEST, discover
from .load.discover import shard as shard_targets
from .load.submission import Submission, load_loose_file, load_submission, merge_related
from .model import Finding, Span, record
from .output.masking import mask_result, token_pattern
from .policy import suppress
from .read.paths import display_path
from .read.safeio import real_path, resolving
from .read.textfile import MAX_BYTES, TextFile
from .read.wordparts import whole_word_part
from .schema import validation


@record
class LintResult:
    findings: list[Finding] = field(default_factory=list)
    # display path -> its lines: a SourceLines of the lines findings point at, the whole list for a
    # file with fixes (memory stays flat in the corpus size)
    sources: dict[str, "list[str] | SourceLines"] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)           # display path -> real path
    files: dict[str, TextFile] = field(default_factory=dict)      # display path -> file as read, if it has fixes
    units: int = 0
    missing: list[str] = field(default_factory=list)
    nested: list = field(default_factory=list)  # nested configurations (config.Config) for Config.apply
    # the run's credentials (masking.Redactor): hides them in text shown from the files themselves
    redactor: object = None


def lint_unit(sub: Submission, kb=None, require_reason: bool = False) -> list[Finding]:
    """Findings of one loaded submission or loose file (load-stage findings included), inline
    suppressions applied (suppressed findings are kept, marked). Credentials are not masked
    yet: whatever is printed or written goes through :func:`lint_paths` (redact.py)."""
    return _lint_unit(sub, kb or knowledge(), require_reason)[0]


def lint_unit_deployment(sub: Submission, kb=None) -> tuple[list[Finding], Deployment]:
    """:func:`lint_unit`'s findings (not masked) and the deployment they were checked on
    (``cfglint explain`` shows it)."""
    return _lint_unit(sub, kb or knowledge(), False)


def _lint_unit(sub: Submission, kb, require_reason: bool) -> tuple[list[Finding], Deployment]:
    """:func:`lint_unit`'s findings and the deployment they were checked on."""
    deployment = extract(kb, sub.manifest, sub.launches, sub.configs)
    findings = list(sub.findings) + [
        Finding("IO001", "shell syntax error in this bash -c string (unbalanced quote, bracket or keyword?): "
                         "the shell refuses it, and the commands in it may be misread", span, level="warning")
        for span in deployment.shell_errors] + [
        Finding("IO001", message, span) for message, span in deployment.config_errors] + run_checks(sub, deployment, kb)
    merge_related(findings, sub)
    _whole_words_only(findings, sub)
    commands = {path: [(c.span.line, c.span.end_line) for c in parsed.commands]
                for path, parsed, _role, is_args in sub.launches if not is_args}
    findings += suppress.apply(findings, sub.texts, require_reason, commands)
    rules = all_rules()
    for f in findings:
        if f.level is None:
            f.level = rules[f.rule_id].level if f.rule_id in rules else "error"
    return findings, deployment


PART_OF_A_WORD = ("no --fix: the value goes on past it in the same shell word, written in quoted parts or "
                  "continued by a backslash-newline; replace the whole word by hand")


def _whole_words_only(findings: list[Finding], sub: Submission) -> None:
    """The one place a text fix (:attr:`Finding.fix`) is withdrawn when its span is only part of
    the word a shell reads there (:func:`cfglint.read.wordparts.whole_word_part`): replacing it
    would leave the rest of the word (``"/home/"'alice'/x`` keeps the user name) or drop a
    backslash-newline (one command becomes two). The finding stays, saying so."""
    lines: dict[str, list[str]] = {}
    for f in findings:
        if f.fix is None:
            continue
        s = f.span
        src = lines.get(s.path)
        if src is None:
            tf = next((t for t in sub.texts if t.display == s.path), None)
            src = lines[s.path] = tf.lines if tf is not None else []
        if s.line == s.end_line and 1 <= s.line <= len(src) and not whole_word_part(
                src[s.line - 1], s.col - 1, s.end_col - 1, src[s.line - 2] if s.line > 1 else ""):
            f.fix = None
            f.message = f"{f.message} ({PART_OF_A_WORD})"


def _serves(sub: Submission, deployment: Deployment) -> bool:
    """True when a file linted on its own is a serving file: a worker argument file, an engine
    config or a YAML naming engine settings it could not read (other YAML is dropped by
    :func:`load_loose_file`), or shell that starts an engine,
    frontend or router (``deployment``: the file's, as it was linted)."""
    if any(is_args for *_, is_args in sub.launches) or sub.configs or sub.k8s_not_modelled or sub.engine_like_yaml:
        return True
    return bool(sub.launches) and bool(deployment.processes)


def _unlisted_finding(path: str, files_at: Span, k8s: bool = False) -> Finding:
    shown = display_path(path)
    kind = "engine config" if path.lower().endswith((".yaml", ".yml")) else "launch file"
    if k8s:
        return Finding("SUB003", f"{shown} is a Kubernetes manifest in the submission directory that {files_at.path} "
                                 f"does not list: it is linted on its own, but not as part of the submission; list it "
                                 f"under files.deploy or move it out",
                       Span(shown, 1, 1, 1, 1), level="warning", related=[(files_at, "the manifest's file list")])
    return Finding("SUB003", f"{shown} is {'an' if kind[0] in 'aeiou' else 'a'} {kind} in the submission directory that {files_at.path} does not list: "
                             f"it is linted on its own, but not as part of the submission; list it under "
                             f"files.{'configs' if kind == 'engine config' else 'launch'} or move it out",
                   Span(shown, 1, 1, 1, 1), level="warning", related=[(files_at, "the manifest's file list")])


def _orphan_finding(path: str) -> Finding:
    shown = display_path(path)
    folder = display_path(os.path.dirname(path)) or "."
    return Finding("SUB004", f"{folder} holds {os.path.basename(path)}, a launch file, engine config or Kubernetes "
                             f"manifest, but no {MANIFEST}: it was checked on its own, and nothing was compared with "
                             f"what a submission declares (accelerators, counts, model, precision); run `cfglint init "
                             f"{folder}` to write a manifest (schemas/submission.schema.json)",
                   Span(shown, 1, 1, 1, 1), level="warning")


def _mask_secrets(result: LintResult, kb) -> None:
    """The choke point every string that leaves cfglint goes through (redact.py): credentials
    RED002 located are hidden in the source lines findings point at and in every message,
    related message and fix; then every long word of the messages is clipped (:func:`_clip`).
    Reports, SARIF fingerprints and baselines only ever see the result."""
    result.redactor = mask_result(result.findings, result.sources, token_pattern(kb.secrets))
    for f in result.findings:
        f.message = _clip(f.message)
        f.related = [(span, _clip(text)) for span, text in f.related]


def _nested(result: LintResult, paths: list[str], config) -> None:
    """Read the nested configurations that govern the linted files (config.nested_configs)."""
    from .policy.config import Config, nested_configs, trust_root

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


def cpus() -> int:
    """The number of CPUs this process may run on: its affinity mask where the platform has one,
    and no more than a cgroup v2 CPU quota allows (``cpu.max``, as containers limit CPUs; see
    https://docs.kernel.org/admin-guide/cgroup-v2.html#cpu-interface-files): the default of ``--jobs``."""
    if hasattr(os, "process_cpu_count"):   # Python 3.13+
        n = os.process_cpu_count() or 1
    elif hasattr(os, "sched_getaffinity"):
        n = len(os.sched_getaffinity(0)) or 1
    else:
        n = os.cpu_count() or 1
    quota = _cgroup_cpu_quota()
    return max(1, min(n, quota)) if quota else n


def _cgroup_cpu_quota(path: str = "/sys/fs/cgroup/cpu.max") -> int | None:
    """CPUs a cgroup v2 quota allows this process (``"max 100000"``: none; ``"150000 100000"``:
    2, rounded up), or None when there is no quota or no such file."""
    from .read.safeio import ReadError, read_bytes

    try:
        quota, period = read_bytes(path, max_bytes=256, partial=True).decode("ascii").split()[:2]
        return -(-int(quota) // int(period)) if quota != "max" and int(period) > 0 else None
    except (ReadError, UnicodeDecodeError, ValueError):
        return None


MIN_POOL_UNITS = 8   # fewer units are linted in-process whatever --jobs says: a pool costs more than it saves
# From this many units a run with --jobs 1 also lints in one worker process: the process keeping the
# run's results then never holds what each unit's work leaves behind in the allocator (with both in
# one process, 11,000 submissions peaked at 121 MiB; a worker and the run: 59 MiB)
SEPARATE_UNITS = 1000
WINDOW = 4           # units handed to the pool ahead of the one the run waits for, per worker


def lint_paths(paths: list[str], extra_knowledge: tuple[str, ...] = (), require_reason: bool = False,
               max_bytes: int = MAX_BYTES, private_ranges: tuple[str, ...] | None = None,
               config=None, jobs: int = 1, shard: tuple[int, int] | None = None) -> LintResult:
    """Lint ``paths`` (submission directories, trees of them, single files). Findings are
    sorted, deduplicated and have credentials masked (redact.py) in their messages and in
    ``sources``; ``missing`` lists paths
    that do not exist. Never raises for bad input: a crash on one unit is an IO001 on it.

    ``config`` is the root configuration (:class:`cfglint.policy.config.Config`; None: defaults, which
    allow nested configurations nothing). Configuration files below the run's root directory on
    the way to a linted file are read as nested ones: ``nested`` holds what they may set (for
    ``config.apply(findings, nested)``), and what they may not set is a CFG001 finding.

    ``jobs`` (at least 1) worker processes lint the units (submissions, loose files) when there
    are at least MIN_POOL_UNITS of them (with ``jobs=1``: one worker from SEPARATE_UNITS units,
    so that memory stays flat) and the platform forks (Linux); the result is the same
    as with ``jobs=1``, finding for finding and in the same order. A worker that dies (a native
    crash) is an IO001 on the unit it was checking. ``sources`` keeps, per file, only the lines
    findings point at (:class:`SourceLines`), the whole file when it has fixes (``files``).
    ``shard`` (index, count): lint only that part of the units (discover.shard)."""
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    validation.new_run()
    targets = discover(paths)
    if shard is not None:
        targets = shard_targets(targets, *shard)
    result = LintResult(missing=list(targets.missing))
    seen: set[tuple] = set()
    kb = knowledge(extra_knowledge, private_ranges)
    roots = targets.roots  # path -> (directory its files must really lie in, its name): no link out is read

    def task(kind: str, path: str, why) -> tuple:
        """What a worker needs to lint one unit: everything the parent's state decides about it."""
        if kind == "sub":
            return (kind, path, roots.get(path, (None,))[0], None, why is not None)
        within, name = roots.get(path, (None, None))
        return (kind, path, within, name, why is not None)

    estimate = sum(map(len, (targets.submissions, targets.loose_files, targets.named_in_submissions,
                             targets.orphan_files)))
    pooled = estimate >= (MIN_POOL_UNITS if jobs > 1 else SEPARATE_UNITS) and _can_fork()
    runner = _Runner(_Units(kb, require_reason, max_bytes), min(jobs, estimate) if pooled else 1, pooled)
    if not pooled and estimate:
        from .read.shell import prestart_parser

        prestart_parser()   # a pool's workers start their own
    # (kind, path, why): why is None, ("unlisted", manifest files span) or ("orphan", None)
    jobs_: list[tuple] = [("sub", d, None) for d in targets.submissions] + \
        [("loose", f, None) for f in targets.loose_files]
    read: set[str] = set()
    queued: set[str] = set()
    orphans_reported: set[str] = set()
    later = [("loose", f, ("orphan", None)) for f in targets.orphan_files]  # SUB004 candidates

    def skipped(kind: str, path: str, why) -> bool:
        """Whether the unit is left out (read already, or queued already as an extra): read and
        queued only grow, so a unit skipped now is skipped when its turn comes."""
        if why is None and kind != "loose":
            return False
        real = os.path.realpath(path)
        return real in read or (why is not None and real in queued)

    try:
        i, tail, ahead = 0, False, 0
        while i < len(jobs_) or not tail:
            if i == len(jobs_):
                # after the submissions: files named inside one that its manifest does not list, then
                # files in no submission; each linted on its own, once
                jobs_ += [("loose", p, None) for p in targets.named_in_submissions
                          if os.path.basename(p) != MANIFEST
                          and (real := os.path.realpath(p)) not in read and real not in queued]
                jobs_ += later
                tail = True
                continue
            # hand the pool the units after this one (their outcome does not depend on this one's)
            ahead = max(ahead, i)
            while ahead < len(jobs_) and ahead < i + runner.window:
                if not skipped(*jobs_[ahead]):
                    runner.submit(ahead, task(*jobs_[ahead]))
                ahead += 1
            kind, path, why = jobs_[i]
            i += 1
            if why is not None or kind == "loose":
                if skipped(kind, path, why):
                    runner.drop(i - 1)
                    continue
                queued.add(os.path.realpath(path))
            result.units += 1
            out = runner.outcome(i - 1, task(kind, path, why))
            findings = out.findings
            try:
                if out.error is not None:
                    raise _UnitError(out.error)
                serves = why is not None and out.serves
                if serves and why[0] == "unlisted":
                    if why[1] is not None:  # None: the manifest is unusable, its files are linted alone
                        findings.append(_unlisted_finding(path, why[1], out.k8s))
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
                loaded = True
            except Exception as err:  # a bug in cfglint: report it on this unit, check the others
                shown = display_path(os.path.join(path, MANIFEST) if os.path.isdir(path) else path)
                text = str(err) if isinstance(err, _UnitError) else f"{type(err).__name__}: {err}"
                findings = [Finding("IO001", f"cfglint internal error while checking {shown}: "
                                    f"{text}; please report this", Span(shown, 1, 1, 1, 1), level="error",
                                    internal=True)]
                loaded = False
            if loaded:
                for display, tpath, real, lines, tf in out.texts:
                    _keep_lines(result.sources, display, lines)
                    result.paths[display] = tpath
                    if tf is not None:
                        result.files[display] = tf
                    read.add(real)
                for upath, files_at in out.unlisted:
                    if os.path.realpath(upath) not in queued:
                        roots.setdefault(upath, (out.root, f"the submission directory {out.display}"))
                        jobs_.append(("loose", upath, ("unlisted", files_at)))
            for f in findings:
                key = (f.rule_id, f.span, f.message)
                if key in seen:
                    continue
                seen.add(key)
                result.findings.append(f)
    finally:
        runner.close()
    _nested(result, paths, config)
    _mask_secrets(result, kb)
    result.findings.sort(key=Finding.sort_key)
    return result


class _UnitError(Exception):
    """A unit's outcome says it failed (the text of the error, as the worker saw it)."""


class SourceLines:
    """The lines of one file that findings point at, as a read-only stand-in for the list of all
    its lines (``len`` is the file's line count; a line no finding points at reads as ``""``):
    a run keeps these, not every line of every file, so its memory does not grow with the
    corpus. Index assignment replaces a kept line (redact.py masks credentials in place)."""

    __slots__ = ("count", "kept")

    def __init__(self, count: int, kept: dict[int, str]):
        self.count = count
        self.kept = kept   # 0-based line index -> text

    def __len__(self) -> int:
        return self.count

    def _index(self, i: int) -> int:
        if i < 0:
            i += self.count
        if not 0 <= i < self.count:
            raise IndexError("line index out of range")
        return i

    def __getitem__(self, i: int) -> str:
        return self.kept.get(self._index(i), "")

    def __setitem__(self, i: int, text: str) -> None:
        self.kept[self._index(i)] = text

    def __iter__(self):
        return (self.kept.get(i, "") for i in range(self.count))

    def __repr__(self) -> str:
        return f"SourceLines({self.count} lines, {len(self.kept)} kept)"


def _keep_lines(sources: dict, display: str, lines) -> None:
    """Record a file's lines as a unit read them (a full list, or the SourceLines findings need),
    merged with what an earlier unit that read the same file kept. A file no finding points
    into is not recorded (a report reads ``sources`` only at findings)."""
    old = sources.get(display)
    if old is None and isinstance(lines, SourceLines) and not lines.kept:
        return
    if isinstance(lines, list) or old is None:
        sources[display] = lines
    elif isinstance(old, SourceLines):
        old.kept.update(lines.kept)
        old.count = lines.count


def _needed_lines(tf: TextFile, findings: list[Finding], whole: bool, first: bool):
    """The lines of ``tf`` a report may show or hash: every line when ``whole`` (a file with
    fixes: --fix and its notes read it), else the first line of each finding's span in it (all
    of a credential's lines, which redact.py masks), of each related span, and line 1 with
    ``first`` (SUB003 / SUB004 are placed there after the unit is linted)."""
    lines = tf.lines
    if whole:
        return lines
    want = {0} if first else set()
    for f in findings:
        if f.span.path == tf.display:
            want.add(f.span.line - 1)
            if f.secret:
                want.update(range(f.span.line - 1, f.span.end_line))
        want.update(s.line - 1 for s, _ in f.related if s.path == tf.display)
    return SourceLines(len(lines), {i: lines[i] for i in want if 0 <= i < len(lines)})


@record
class _Outcome:
    """What the run keeps of one linted unit (picklable: it comes back from a worker process).
    ``texts``: (display path, path, real path, lines kept, TextFile when it has fixes) per file
    read; ``error``: the text of the IO001 when linting it failed."""

    findings: list[Finding] = field(default_factory=list)
    serves: bool = False
    texts: list[tuple] = field(default_factory=list)
    unlisted: list[tuple[str, Span | None]] = field(default_factory=list)
    root: str = ""
    display: str = ""
    error: str | None = None
    k8s: bool = False   # the unit is a Kubernetes manifest (SUB003 names files.deploy)


@record
class _Units:
    """Lints one unit from its task (:func:`lint_paths`): the same code in-process and in workers."""

    kb: object
    require_reason: bool
    max_bytes: int

    def run(self, task: tuple) -> _Outcome:
        kind, path, within, name, extra = task
        try:
            if kind == "sub":
                sub = load_submission(path, kb=self.kb, max_bytes=self.max_bytes, tree=within)
            else:
                sub = load_loose_file(path, max_bytes=self.max_bytes, within=within, within_name=name)
            findings, deployment = _lint_unit(sub, self.kb, self.require_reason)
            serves = extra and _serves(sub, deployment)
            fixable = {f.span.path for f in findings if f.fix is not None or f.move is not None}
            texts = []
            with resolving():   # the files' directories resolved once
                for tf in sub.texts + sub.scan_only:
                    whole = tf.display in fixable
                    texts.append((tf.display, tf.path, real_path(tf.path),
                                  _needed_lines(tf, findings, whole, extra), tf if whole else None))
            return _Outcome(findings, serves, texts, list(sub.unlisted), sub.root, sub.display,
                            k8s=bool(sub.k8s_objects or sub.k8s_not_modelled))
        except Exception as err:  # a bug in cfglint: the run reports it on this unit (lint_paths)
            return _Outcome(error=f"{type(err).__name__}: {err}")


def _can_fork() -> bool:
    """Worker processes are forked (they inherit the loaded knowledge and rules): Linux only,
    not with ``CFGLINT_NO_FORK`` set, and not inside a daemonic process (a multiprocessing pool's
    worker may not have children): there everything runs in this process."""
    import multiprocessing

    return (sys.platform.startswith("linux") and not os.environ.get("CFGLINT_NO_FORK")
            and "fork" in multiprocessing.get_all_start_methods()
            and not multiprocessing.current_process().daemon)


PR_SET_PDEATHSIG = 1   # Linux prctl(2): the signal a process gets when the thread that forked it ends


def _die_with_parent(parent: int) -> None:
    """In a worker process, first thing: be killed when ``parent`` (the cfglint run) dies, even
    by SIGKILL, instead of waiting forever on the pool's queue (its shell parse worker then ends
    on EOF). Pool and single-unit processes are forked by the run's main thread."""
    import signal

    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):   # no prctl: the worker still ends when the pool is shut down
        pass
    if os.getppid() != parent:   # the run died before prctl took effect
        os._exit(1)


_WORKER: _Units | None = None   # set in the parent before the pool forks; the workers inherit it


def _pool_run(task: tuple) -> _Outcome:
    return _WORKER.run(task)


def _solo_main(conn, task: tuple, parent: int) -> None:
    _die_with_parent(parent)
    conn.send(_WORKER.run(task))
    conn.close()


class _Runner:
    """Runs units in-process (``workers`` 1) or in a pool of forked worker processes, handing
    out outcomes in the order the run asks for them. A unit whose worker died (the pool broke)
    is linted again alone in a process of its own, so the unit that kills a process is found
    and becomes an IO001; the others get their outcome and the run goes on with a new pool."""

    def __init__(self, units: _Units, workers: int, pooled: bool | None = None):
        self.units = units
        self.workers = workers
        self.pooled = workers > 1 if pooled is None else pooled   # a pool (of ``workers``), else in-process
        self.window = WINDOW * workers if self.pooled else 0
        self.pool = None
        self.pending: dict[int, tuple] = {}   # job index -> (task, future)
        self.done: dict[int, tuple] = {}      # job index -> (task, outcome) of units redone alone

    def _pool(self):
        global _WORKER
        if self.pool is None:
            import multiprocessing
            from concurrent.futures import ProcessPoolExecutor

            _WORKER = self.units
            self.pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("fork"),
                                            initializer=_die_with_parent, initargs=(os.getpid(),))
        return self.pool

    def submit(self, index: int, task: tuple) -> None:
        if self.pooled and index not in self.pending and index not in self.done:
            from concurrent.futures.process import BrokenProcessPool  # only with a pool: ~30 ms to import

            try:
                future = self._pool().submit(_pool_run, task)
            except BrokenProcessPool:   # a worker died since the last look: a new pool
                self._recover([])
                future = self._pool().submit(_pool_run, task)
            self.pending[index] = (task, future)

    def drop(self, index: int) -> None:
        entry = self.pending.pop(index, None)
        if entry is not None:
            entry[1].cancel()
        self.done.pop(index, None)

    def outcome(self, index: int, task: tuple) -> _Outcome:
        """The outcome of job ``index``, whose task is now ``task`` (a unit handed out early
        with other inputs, e.g. a root an earlier unit set since, is linted again)."""
        if not self.pooled:   # no pool: nothing was handed out early
            return self.units.run(task)
        from concurrent.futures.process import BrokenProcessPool

        if index in self.done:
            early, out = self.done.pop(index)
            if early == task:
                return out
        entry = self.pending.pop(index, None)
        if entry is None or entry[0] != task:
            if entry is not None:
                entry[1].cancel()
            self.submit(index, task)
            entry = self.pending.pop(index)
        try:
            return entry[1].result()
        except BrokenProcessPool:
            self._recover([(index, task)])
            return self.done.pop(index)[1]
        except Exception as err:   # the outcome did not come back (e.g. it could not be pickled)
            return _Outcome(error=f"{type(err).__name__}: {err}")

    def _recover(self, broken: list[tuple[int, tuple]]) -> None:
        """The pool broke: lint each unit it had not finished alone, in a forked process of its
        own; the next units go to a new pool."""
        for index, (task, future) in sorted(self.pending.items()):
            if future.done() and not future.cancelled() and future.exception() is None:
                self.done[index] = (task, future.result())
            else:
                broken.append((index, task))
        self.pending.clear()
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.pool = None
        for index, task in broken:
            self.done[index] = (task, _solo(task))

    def close(self) -> None:
        global _WORKER
        if self.pool is not None:
            for _task, future in self.pending.values():
                future.cancel()
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None
        self.pending.clear()
        _WORKER = None


def _solo(task: tuple) -> _Outcome:
    """Lint one unit in a forked process of its own; its death is the unit's IO001."""
    import multiprocessing
    import signal

    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_solo_main, args=(send, task, os.getpid()), daemon=True)
    proc.start()
    send.close()
    try:
        out = receive.recv()
    except (EOFError, OSError):
        out = None
    finally:
        receive.close()
    proc.join()
    if out is not None:
        return out
    code = proc.exitcode
    if code is not None and code < 0:
        try:
            how = f"killed by signal {signal.Signals(-code).name}"
        except ValueError:
            how = f"killed by signal {-code}"
    else:
        how = f"exit status {code}"
    return _Outcome(error=f"the worker process checking it died ({how})")


__all__ = ["LintResult", "SourceLines", "cpus", "lint_paths", "lint_unit", "lint_unit_deployment"]
