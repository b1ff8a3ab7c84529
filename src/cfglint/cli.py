"""Command line: ``cfglint check``, ``cfglint rules``, ``cfglint rule ID``.

Exit codes (README.md, 'Exit codes'): 0 no finding at or above the fail level, 1 findings, 2 usage or
configuration error.
"""

from __future__ import annotations

import errno
import os
import sys

import click

from . import DISTRIBUTION, __version__


def _say(message: str) -> None:
    """Write one diagnostic line to standard error. Every one of them goes through here: input
    quoted in it (a file name, a configuration value) is neutralized like report text (a line
    feed in it is written ``\\n``), so pre-commit's output in a CI log can never carry a workflow
    command, a terminal control or a line of its own."""
    from .output.neutral import neutralize

    click.echo(neutralize(message), err=True)


FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson")

_stdout_failed = False   # a write to standard output failed: the process ends with exit 2 (run)


def _out(text: str, nl: bool = True) -> None:
    """Write report text to standard output (click.echo flushes each write). A write that fails
    (a full disk, an I/O error) is exit 2 with one line on standard error, whatever the
    findings, also on a clean run; a closed pipe (``| head``) is click's, as before."""
    global _stdout_failed
    try:
        click.echo(text, nl=nl)
    except OSError as err:
        if err.errno == errno.EPIPE:
            raise
        _stdout_failed = True
        _say(f"cfglint: error: cannot write to standard output: {err.strerror or err}")
        sys.exit(2)


def run() -> None:
    """The ``cfglint`` command (and ``python -m cfglint``): :func:`main`, then the process ends
    with main's exit code without tearing the interpreter down: freeing every module and
    object was ~6% of a one-submission run and changes nothing for a process that is ending.
    Taken only when nothing else runs: no thread but this one, no multiprocessing child (a
    --jobs pool is shut down inside the run); the shell-parse worker is killed and reaped (it
    holds nothing to flush). Output is flushed first; a string or None exit code, or a flush
    that fails on a closed pipe, takes the interpreter's own exit path as before; a report that
    cannot be written to standard output (a full disk) is exit 2 with one line (:func:`_out`)."""
    try:
        main()
        code: object = 0
    except SystemExit as exc:
        code = exc.code
    if not _stdout_failed:
        try:
            sys.stdout.flush()
        except OSError as err:   # what is left of the report cannot be written (a full disk)
            if err.errno == errno.EPIPE:
                raise SystemExit(code) from None
            _say(f"cfglint: error: cannot write to standard output: {err.strerror or err}")
            _ended_without_stdout()
    else:   # the report was not written: its buffered rest must not be flushed (and fail) at exit
        _ended_without_stdout()
    th, mp = sys.modules.get("threading"), sys.modules.get("multiprocessing")
    if (not isinstance(code, int) or (th is not None and th.active_count() != 1)
            or (mp is not None and mp.active_children())):
        raise SystemExit(code)
    try:
        sys.stderr.flush()
    except BaseException:
        raise SystemExit(code) from None
    from .read.shell import worker as shellworker

    shellworker.close(kill=True)
    os._exit(code)


def _ended_without_stdout() -> None:
    """End the process with exit 2 after a failed write to standard output, without the
    interpreter's exit flushing the rest of the report (which fails again, with a traceback)."""
    try:
        sys.stderr.flush()
    finally:
        from .read.shell import worker as shellworker

        shellworker.close(kill=True)
        os._exit(2)


def _print_version(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    """``cfglint --version``: the version and distribution, then what the bundled knowledge covers
    (its date and the engine releases of its flag lists), so a report can say what it was
    checked against."""
    if not value or ctx.resilient_parsing:
        return
    import yaml

    from .knowledge import coverage_line
    from .read.safeio import ReadError

    _out(f"cfglint {__version__} ({DISTRIBUTION})")
    try:
        _out(coverage_line())
    except (OSError, ReadError, ValueError, yaml.YAMLError) as err:  # a broken installation
        _say(f"cfglint: cannot read the bundled knowledge: {err}")
        ctx.exit(2)
    ctx.exit()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--version", is_flag=True, expose_value=False, is_eager=True, callback=_print_version,
              help="Show the version, the knowledge's date and the engine releases whose flags it holds, and exit.")
def main() -> None:
    """Static linter for LLM inference-serving submissions."""


class _PathsCommand(click.Command):
    """A command whose arguments name files (``check``): a tool that passes file names after its
    own arguments (pre-commit appends the staged files) turns a file named ``--config=x.yaml`` or
    ``-ovictim.sh`` into an option. An argument before ``--`` that reads as an option and also
    names an existing file is refused (exit 2, one line), since only ``--`` can say which it is;
    after ``--`` every argument is a path."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        for arg in args:
            if arg == "--":
                break
            if arg.startswith("-") and arg != "-" and os.path.lexists(arg):
                from .read.paths import printable

                _say(f"cfglint: error: '{printable(arg)}' is an option and also the name of a file: put `--` before "
                     f"file names (cfglint check [OPTIONS] -- PATH ...) so that a file name is never read as an option")
                ctx.exit(2)
        return super().parse_args(ctx, args)


@main.command(cls=_PathsCommand)
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "-f", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="Output format.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report to FILE instead of standard output.")
@click.option("--fail-level", type=click.Choice(["note", "warning", "error"]), default=None,
              help="Exit 1 when a finding at or above this level is reported (default: error, or the config's).")
@click.option("--knowledge", "knowledge_files", multiple=True, type=click.Path(dir_okay=False),
              help="A YAML file of your own accelerators, models, parser names or host path prefixes "
                   "(same shape as rules/*.yaml); repeatable.")
@click.option("--no-cache", is_flag=True,
              help="Use no cache: parse the knowledge files and validate every document against its schema "
                   "($CFGLINT_CACHE_DIR, else $XDG_CACHE_HOME/cfglint, else ~/.cache/cfglint; "
                   "CFGLINT_NO_CACHE=1 does the same).")
@click.option("--select", multiple=True, metavar="IDS",
              help="Rule ids or families to report, comma-separated; repeatable, the values add up "
                   "(together they replace the config's select).")
@click.option("--ignore", multiple=True, metavar="IDS",
              help="Rule ids or families not to report, comma-separated; repeatable (added to the config's).")
@click.option("--config", "config_file", type=click.Path(dir_okay=False), default=None,
              help="Root configuration file (default: the nearest .cfglint.yaml or pyproject.toml [tool.cfglint] "
                   "at or above the top of the git working tree; configuration files below it may set only what "
                   "the root's allow-nested lists).")
@click.option("--no-config", is_flag=True, help="Ignore configuration files.")
@click.option("--max-file-size", type=click.IntRange(min=1), default=None,
              help="Files larger than this many bytes are reported (IO001), not read (default 10 MiB).")
@click.option("--fix", "fix", is_flag=True, help="Apply mechanical fixes in place (e.g. RED001 -> <host-path>), then report what is left.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False), default=None,
              help="Report only findings not recorded in this baseline file.")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False), default=None,
              help="Record the current findings in this file (for --baseline) and exit 0.")
@click.option("--jobs", "-j", "jobs", type=int, default=None,
              help="Worker processes linting submissions in parallel (default: the configuration's jobs, else the "
                   "number of CPUs this process may use; 1: in this process, or from 1,000 submissions in one worker). "
                   "The output is the same for every value.")
def check(paths: tuple[str, ...], fmt: str, output: str | None, fail_level: str | None,
          knowledge_files: tuple[str, ...], no_cache: bool, select: tuple[str, ...], ignore: tuple[str, ...],
          config_file: str | None, no_config: bool, max_file_size: int | None, fix: bool,
          baseline_file: str | None, write_baseline: str | None, jobs: int | None) -> None:
    """Lint submissions (directories holding submission.yaml) and files. PATHS default to '.'."""
    from .checks import all_rules
    from .knowledge import KnowledgeError, knowledge
    from .lint import lint_paths
    from .model import level_rank
    from .output import report
    from .policy.config import ConfigError, check_selectors, find_config, load_config, selectors, trust_root
    from .read.paths import printable

    if no_cache:
        from .knowledge.kbcache import disable

        disable()
    if jobs is not None and jobs < 1:
        _say(f"cfglint: error: --jobs must be at least 1, not {jobs}")
        sys.exit(2)
    targets = list(paths) or ["."]
    root_dir = trust_root([t for t in targets if os.path.lexists(t)] or ["."])
    try:
        cfg = load_config(None if no_config else (config_file or find_config(targets, root_dir)))
    except ConfigError as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    cfg.root_dir, cfg.read_nested = root_dir, not no_config
    try:
        known = list(all_rules())
        if select:
            cfg.select = selectors(select, "--select")
            check_selectors(cfg.select, "--select", known)
        if ignore:
            more = selectors(ignore, "--ignore")
            check_selectors(more, "--ignore", known)
            cfg.ignore += more
    except ConfigError as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    fail_level = fail_level or cfg.fail_level
    extra = tuple(cfg.knowledge) + tuple(knowledge_files)
    try:
        knowledge(extra)
    except KnowledgeError as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    if max_file_size:
        cfg.max_file_size = max_file_size
    from .lint import cpus

    jobs = jobs or cfg.jobs or cpus()
    result = lint_paths(targets, extra, cfg.require_reason, cfg.max_file_size, cfg.private_ranges, cfg, jobs=jobs)
    if result.missing:
        for m in result.missing:
            _say(f"cfglint: error: no such file or directory: {printable(m)}")
        sys.exit(2)
    result.findings = cfg.apply(result.findings, result.nested)
    if fix:
        from .edit.fix import apply_fixes
        from .model import Finding, Span

        # --fix never writes through a symbolic link (safeio.atomic_write refuses it too): those
        # files keep their findings, and an IO001 note says why they were not fixed
        linked = {shown for shown, tf in result.files.items() if os.path.islink(tf.path)}
        unfixed = sorted({f.span.path for f in result.findings if (f.fix is not None or f.move is not None)
                          and not f.suppressed and f.span.path in linked})
        notes = [Finding("IO001", f"not fixed: {shown} is a symbolic link; --fix does not write through links "
                                  "(fix the file it points to)", Span(shown, 1, 1, 1, 1), level="warning")
                 for shown in unfixed]
        try:
            fixable = {k: v for k, v in result.files.items() if k not in linked}
            done = apply_fixes(result.findings, fixable)
            if any(f.move is not None for f in result.findings):   # structural fixes (fix.apply_moves)
                from .edit.fix import apply_moves

                moved = apply_moves(result.findings, fixable, skip=set(done.files))
                done.fixed += moved.fixed
                done.notes += moved.notes
        except OSError as err:
            _say(f"cfglint: error: cannot fix: {err.strerror or err}")
            sys.exit(2)
        for note in done.notes:
            _say(f"cfglint: {note}")
        if done.fixed:
            _say(f"cfglint: fixed {done.fixed} finding(s)")
            result = lint_paths(targets, extra, cfg.require_reason, cfg.max_file_size, cfg.private_ranges, cfg,
                                jobs=jobs)
            result.findings = cfg.apply(result.findings, result.nested)
        result.findings = sorted(result.findings + cfg.apply(notes), key=Finding.sort_key)
    if write_baseline:
        from .policy.baseline import write

        try:
            write(write_baseline, result.findings, result.sources)
        except OSError as err:
            _say(f"cfglint: error: cannot write {write_baseline}: {err.strerror}")
            sys.exit(2)
        from .policy.baseline import recordable

        secrets = sum(1 for f in result.findings if f.secret and not f.suppressed)
        _say(f"cfglint: wrote {sum(1 for f in result.findings if recordable(f))} finding(s) to {write_baseline}"
                   + (f"; {secrets} credential(s) (RED002) not recorded: a baseline never accepts a secret, "
                      f"revoke it and remove it" if secrets else ""))
        sys.exit(0)
    baselined = None  # with --baseline: how many findings it hid (the summary says)
    if baseline_file:
        from .policy.baseline import base_dir, new_findings, read

        try:
            known = read(baseline_file)
        except (OSError, ValueError) as err:
            _say(f"cfglint: error: cannot read baseline {baseline_file}: {err}")
            sys.exit(2)
        rel = base_dir(baseline_file)
        before = len(result.findings)
        result.findings = new_findings(result.findings, known, result.sources, rel)   # RED002 always kept
        baselined = before - len(result.findings)
    if result.units == 0:
        _say("cfglint: warning: no submission (a directory with submission.yaml) found; "
                   "pass launch or engine files to lint them on their own")
    failing = [f for f in result.findings if not f.suppressed and level_rank(f.level) >= level_rank(fail_level)]
    code = 1 if failing else 0
    rules = all_rules()
    if fmt == "text":
        body = report.text(result.findings, result.sources, report.summarize(result.findings, result.units, baselined))
    elif fmt == "json":
        body = report.as_json(result.findings, code, baselined)
    elif fmt == "github":
        body = report.github(result.findings)
    elif fmt in ("gitlab", "junit", "rdjson"):   # CI systems other than GitHub (ciformats.py)
        from .output import ciformats

        if fmt == "gitlab":
            body = ciformats.gitlab(result.findings, rules, result.sources)
        elif fmt == "junit":
            body = ciformats.junit(result.findings, result.units, fail_level)
        else:
            body = ciformats.rdjson(result.findings, result.sources)
    else:   # in pieces, written as they are made: the report of a large corpus is never one string
        body = report.sarif_parts(result.findings, rules, result.sources, code)
    # past GitHub's limit a SARIF run leaves results out (credentials and errors kept first): said
    left_out = report.capped(result.findings)[1] if fmt == "sarif" else None
    if output:
        from .read.safeio import atomic_write

        try:  # atomically, never through a symbolic link (safeio)
            atomic_write(output, body, make_parents=True)
        except OSError as err:
            _say(f"cfglint: error: cannot write {output}: {err.strerror}")
            sys.exit(2)
        if fmt != "text":
            _say(report.summarize(result.findings, result.units, baselined, left_out))
    else:
        for piece in [body] if isinstance(body, str) else body:
            _out(piece, nl=False)
        if left_out:
            _say(f"cfglint: warning: {report.left_out_text(left_out)}")
    sys.exit(code)


@main.command("init")
@click.argument("path", type=click.Path())
@click.option("--dry-run", is_flag=True, help="Say what would change (on standard error); write nothing.")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the change as a unified diff on standard output; write nothing.")
@click.option("--knowledge", "knowledge_files", multiple=True, type=click.Path(dir_okay=False),
              help="A YAML file of your own accelerators, models or parser names (as for check); repeatable.")
def init(path: str, dry_run: bool, show_diff: bool, knowledge_files: tuple[str, ...]) -> None:
    """Write or update PATH's submission.yaml from its launch files.

    PATH is a launch script or a directory of launch files and engine configs. A new manifest
    gets every field the launch determines (engine, topology, speculative decoding, files) and
    null, marked FILL IN, where it cannot (submitter, system); an existing one gets only its
    derivable fields updated, comments, order and quoting kept. Exit 0: done (or, with
    --dry-run / --diff, nothing to change); 1: --dry-run / --diff and the manifest would change;
    2: bad input."""
    from .edit.init import InitError, diff, run, summary, write
    from .knowledge import KnowledgeError, knowledge

    try:
        kb = knowledge(tuple(knowledge_files))
        result = run(path, kb)
    except (InitError, KnowledgeError) as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    except Exception as err:  # a bug in cfglint: one line, as check reports it on a unit  # noqa: BLE001
        _say(f"cfglint: error: internal error while reading {path}: {type(err).__name__}: {err}; please report this")
        sys.exit(2)
    for line in summary(result):
        _say(f"cfglint: {line}")
    if show_diff:
        _out(diff(result), nl=False)
    if dry_run or show_diff:
        sys.exit(1 if result.changed else 0)
    if result.changed:
        try:
            write(result)
        except OSError as err:
            _say(f"cfglint: error: cannot write {result.path}: {err.strerror or err}")
            sys.exit(2)
        from .read.paths import display_path

        _say(f"cfglint: wrote {display_path(result.path)}")
    sys.exit(0)


@main.command("rules")
def list_rules() -> None:
    """List every rule: id, name, default level, summary."""
    from .checks import all_rules

    for r in all_rules().values():
        _out(f"{r.id:8} {r.name:30} {r.level:8} {r.summary}")


@main.command("rule")
@click.argument("rule_id")
def show_rule(rule_id: str) -> None:
    """Explain one rule: what it checks, why, a failing and a passing example, the fix, sources."""
    from .checks import all_rules
    from .output.ruledocs import render

    r = all_rules().get(rule_id.upper())
    if r is None:
        _say(f"cfglint: error: unknown rule {rule_id!r}; see 'cfglint rules'")
        sys.exit(2)
    _out(render(r))


def _not_written_by_docs(directory: str, rules: dict) -> str | None:
    """The first file ``cfglint docs`` would replace in ``directory`` that it did not write (a
    rule page starts with ``# <ID> ``, the index says it is generated), or None."""
    from .read.safeio import ReadError, read_bytes

    pages = {f"{r.id}.md": f"# {r.id} ".encode() for r in rules.values()}
    for name, head in [*pages.items(), ("README.md", b"# cfglint rules\n\nGenerated by `cfglint docs`")]:
        path = os.path.join(directory, name)
        if not os.path.lexists(path):
            continue
        try:
            start = read_bytes(path, len(head), partial=True)[:len(head)]
        except (ReadError, OSError):
            return path
        if start != head:
            return path
    return None


@main.command("docs")
@click.argument("directory", required=False, type=click.Path())
def write_docs(directory: str | None) -> None:
    """Write one Markdown page per rule (and an index, README.md) into DIRECTORY; without
    DIRECTORY, print every page as one Markdown document to standard output.

    Like ``ruff rule --all`` or ``pylint --generate-rcfile``, a generator that is not told where
    to write prints: it never writes files into whatever directory it runs in. Exit 2 with one
    line when DIRECTORY cannot be made or written.
    """
    from .checks import all_rules
    from .output.ruledocs import index, one_document, render
    from .read.paths import printable
    from .read.safeio import atomic_write

    rules = all_rules()
    if directory is None:
        _out(one_document(rules), nl=False)
        return
    if os.path.lexists(directory) and not os.path.isdir(directory):
        _say(f"cfglint: error: cannot write rule pages into {printable(directory)}: it is not a directory "
             "(name a directory to create or fill, or none to print the pages)")
        sys.exit(2)
    from .read.safeio import make_dirs, writable_place

    try:   # no directory is made, no page read or written, through a link out of the tree
        writable_place(directory)
    except OSError as err:
        _say(f"cfglint: error: cannot write rule pages into {printable(directory)}: {err.strerror}")
        sys.exit(2)
    foreign = _not_written_by_docs(directory, rules)
    if foreign is not None:
        _say(f"cfglint: error: {printable(foreign)} exists and was not written by cfglint docs: it is not "
             "overwritten (name a new directory, or one cfglint docs filled)")
        sys.exit(2)
    target = directory
    try:  # atomically, never through a symbolic link (safeio)
        make_dirs(directory)
        for r in rules.values():
            target = os.path.join(directory, f"{r.id}.md")
            atomic_write(target, render(r))
        target = os.path.join(directory, "README.md")
        atomic_write(target, index(rules))
    except (OSError, ValueError) as err:   # ValueError: a name the file system cannot take
        why = getattr(err, "strerror", None) or str(err)
        _say(f"cfglint: error: cannot write {printable(target)}: {why} (choose a directory you can write)")
        sys.exit(2)
    _say(f"cfglint: wrote {len(rules)} rule pages to {printable(directory)}")
