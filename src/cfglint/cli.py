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


FORMATS = ("text", "json", "github", "sarif", "gitlab", "junit", "rdjson", "markdown")


class _FormatSpec(click.ParamType):
    """``--format FORMAT[:FILE]``: a format of :data:`FORMATS`, and the file it is written to
    (none: standard output, or ``--output``). Split at the first colon (a format name has none,
    a file name may: ``sarif:C:/out.sarif``)."""

    name = "format"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        fmt, sep, path = str(value).partition(":")
        if fmt not in FORMATS:
            self.fail(f"{fmt!r} is not one of {', '.join(map(repr, FORMATS))} (optionally followed by :FILE)", param, ctx)
        if sep and not path:
            self.fail(f"{value!r}: name the file after the colon, or drop the colon", param, ctx)
        return fmt, (path or None)


class _ShardSpec(click.ParamType):
    """``--shard i/N``: part i (1-based) of N."""

    name = "i/N"

    def convert(self, value, param, ctx):
        if isinstance(value, tuple):
            return value
        head, sep, tail = str(value).partition("/")
        if sep and head.isdigit() and tail.isdigit() and 1 <= int(head) <= int(tail) and len(tail) < 7:
            return int(head), int(tail)
        self.fail(f"{value!r} is not i/N with 1 <= i <= N (e.g. 2/4)", param, ctx)


def _outputs(formats: tuple[tuple[str, str | None], ...], output: str | None) -> list[tuple[str, str | None]]:
    """Where each report goes: (format, file or None for standard output). ``--output`` is the
    file of the one format given without a file. Exits 2 when two reports would share standard
    output or a file, or ``--output`` has no format to take."""
    outs = list(formats) or [("text", None)]
    bare = [fmt for fmt, path in outs if path is None]
    if len(bare) > 1:
        _say(f"cfglint: error: --format {' and '.join(bare)} would both write to standard output; give all but one "
             f"a file (--format {bare[-1]}:FILE)")
        sys.exit(2)
    if output is not None:
        if not bare:
            _say("cfglint: error: --output names the file of the format given without one, and every --format "
                 "names its own file")
            sys.exit(2)
        outs = [(fmt, output if path is None else path) for fmt, path in outs]
    files = [os.path.abspath(path) for _, path in outs if path is not None]
    if len(files) != len(set(files)):
        _say("cfglint: error: two --format reports name the same file")
        sys.exit(2)
    return outs


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
@click.option("--format", "-f", "formats", type=_FormatSpec(), multiple=True, metavar="FORMAT[:FILE]",
              help=f"Output format, one of {', '.join(FORMATS)} (default text), optionally with the file to write it to: FORMAT[:FILE]. "
                   "Repeatable: one run writes several reports, e.g. --format github --format sarif:cfglint.sarif; "
                   "at most one without a file (it goes to standard output, or --output).")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the report of the --format given without a file to FILE instead of standard output.")
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
@click.option("--fix", "fix", is_flag=True, help="Apply safe fixes in place (e.g. RED001 -> <host-path>), then report what is left.")
@click.option("--unsafe-fixes", is_flag=True,
              help="With --fix / --diff, also apply unsafe fixes: those that change what the engine does or need a "
                   "person's review (e.g. HW001 -> marlin).")
@click.option("--diff", "show_diff", is_flag=True,
              help="Print the unified diff of what --fix would write, write nothing; exit 1 when there is one.")
@click.option("--show-fixes", is_flag=True,
              help="With --fix (or --diff), list each fix made (or that would be made): path:line:col: RULE old -> new.")
@click.option("--statistics", is_flag=True,
              help="Print the number of findings per rule instead of the findings (text or json).")
@click.option("--shard", type=_ShardSpec(), default=None,
              help="Lint only part i of N of the submissions (a CI matrix); `cfglint merge` joins the parts' SARIF "
                   "into the report of one run.")
@click.option("--baseline", "baseline_file", type=click.Path(dir_okay=False), default=None,
              help="Report only findings not recorded in this baseline file.")
@click.option("--write-baseline", "write_baseline", type=click.Path(dir_okay=False), default=None,
              help="Record the current findings in this file (for --baseline) and exit 0.")
@click.option("--stdin-filename", "stdin_filename", type=click.Path(), default=None,
              help="With PATH '-': lint standard input as this file (of its submission; the submission's other "
                   "files are read from disk), as an editor or a pipe passes an unsaved buffer.")
@click.option("--jobs", "-j", "jobs", type=int, default=None,
              help="Worker processes linting submissions in parallel (default: the configuration's jobs, else the "
                   "number of CPUs this process may use; 1: in this process, or from 1,000 submissions in one worker). "
                   "The output is the same for every value.")
def check(paths: tuple[str, ...], formats: tuple[tuple[str, str | None], ...], output: str | None,
          fail_level: str | None, knowledge_files: tuple[str, ...], no_cache: bool, select: tuple[str, ...],
          ignore: tuple[str, ...], config_file: str | None, no_config: bool, max_file_size: int | None, fix: bool,
          unsafe_fixes: bool, show_diff: bool, show_fixes: bool, statistics: bool, shard: tuple[int, int] | None,
          baseline_file: str | None, write_baseline: str | None, jobs: int | None,
          stdin_filename: str | None = None) -> None:
    """Lint submissions (directories holding submission.yaml) and files. PATHS default to '.';
    '-' is standard input, linted as the file --stdin-filename names."""
    from .checks import all_rules
    from .knowledge import KnowledgeError, knowledge
    from .lint import lint_paths
    from .model import level_rank
    from .policy.config import ConfigError, check_selectors, find_config, load_config, selectors, trust_root
    from .read.paths import printable

    if no_cache:
        from .knowledge.kbcache import disable

        disable()
    if jobs is not None and jobs < 1:
        _say(f"cfglint: error: --jobs must be at least 1, not {jobs}")
        sys.exit(2)
    _check_fix_options(fix, show_diff, show_fixes, unsafe_fixes, formats, output, statistics, write_baseline)
    outs = _outputs(formats, output)
    if statistics and any(p is None and f not in ("text", "json") for f, p in outs):
        _say("cfglint: error: --statistics prints text or json; give the other formats a file (--format F:FILE)")
        sys.exit(2)
    if statistics and all(p is not None for _, p in outs):
        outs.append(("text", None))   # the counts go to standard output beside the reports in files
    targets = _stdin_targets(paths, stdin_filename, fix, max_file_size)
    root_dir = trust_root([t for t in targets if os.path.lexists(t)] or ["."])
    try:
        cfg = load_config(None if no_config else (config_file or find_config(targets, root_dir)))
    except ConfigError as err:
        _config_error(err)
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
        _config_error(err)
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

    def lint():
        found = lint_paths(targets, extra, cfg.require_reason, cfg.max_file_size, cfg.private_ranges, cfg, jobs=jobs,
                           shard=shard)
        found.findings = cfg.apply(found.findings, found.nested)
        return found

    result = lint()
    if result.missing:
        for m in result.missing:
            _say(f"cfglint: error: no such file or directory: {printable(m)}")
        sys.exit(2)
    if show_diff:
        sys.exit(_diff(result, unsafe_fixes, show_fixes))
    if fix:
        result = _fix(result, cfg, unsafe_fixes, show_fixes, lint)
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
        _say(f"cfglint: warning: shard {shard[0]}/{shard[1]} holds no submission or file" if shard else
             "cfglint: warning: no submission (a directory with submission.yaml) found; "
             "pass launch or engine files to lint them on their own")
    failing = [f for f in result.findings if not f.suppressed and level_rank(f.level) >= level_rank(fail_level)]
    code = 1 if failing else 0
    _write_reports(outs, result, code, baselined, fail_level, unsafe_fixes, statistics)
    sys.exit(code)


def _config_error(err) -> None:
    """Exit 2 with each problem of a configuration error on a line of its own."""
    for message in err.messages:
        _say(f"cfglint: error: {message}")
    sys.exit(2)


def _check_fix_options(fix: bool, show_diff: bool, show_fixes: bool, unsafe_fixes: bool, formats: tuple,
                       output: str | None, statistics: bool, write_baseline: str | None) -> None:
    """Exit 2 for fix options that do not go together: --diff prints a diff and nothing else,
    --show-fixes and --unsafe-fixes act on --fix or --diff."""
    if show_diff and (formats or output or statistics or write_baseline):
        _say("cfglint: error: --diff prints the diff of the fixes and nothing else: it takes no --format, --output, "
             "--statistics or --write-baseline")
        sys.exit(2)
    for flag, given in (("--show-fixes", show_fixes), ("--unsafe-fixes", unsafe_fixes)):
        if given and not (fix or show_diff):
            _say(f"cfglint: error: {flag} acts on the fixes of --fix or --diff; add one of them")
            sys.exit(2)


def _hide(result, same_length: bool):
    """The run's masking of credentials for text shown from the files themselves."""
    redactor = result.redactor
    if not redactor:
        return lambda text: text
    return lambda text: redactor.hide(text, same_length=same_length)


def _fixable_files(result) -> tuple[dict, list]:
    """The files --fix may write (every file with a fix but symbolic links, which it never writes
    through) and an IO001 note for each linked file whose fixes are therefore not made."""
    from .model import Finding, Span

    linked = {shown for shown, tf in result.files.items() if os.path.islink(tf.path)}
    unfixed = sorted({f.span.path for f in result.findings if (f.fix is not None or f.move is not None)
                      and not f.suppressed and f.span.path in linked})
    notes = [Finding("IO001", f"not fixed: {shown} is a symbolic link; --fix does not write through links "
                              "(fix the file it points to)", Span(shown, 1, 1, 1, 1), level="warning")
             for shown in unfixed]
    return {k: v for k, v in result.files.items() if k not in linked}, notes


def _unsafe_hint(n: int) -> str:
    return f"; {n} more with --unsafe-fixes" if n else ""


def _diff(result, unsafe_fixes: bool, show_fixes: bool) -> int:
    """``--diff``: print the unified diff of what --fix would write (nothing is written); the
    exit code: 1 when there is a diff, else 0."""
    from .edit.fix import diff, plan, shown_fixes

    files, linked = _fixable_files(result)
    fix_plan = plan(result.findings, files, unsafe=unsafe_fixes)
    for note in fix_plan.notes + [f"{f.span}: {f.message}" for f in linked]:
        _say(f"cfglint: {note}")
    if show_fixes:
        for line in shown_fixes(fix_plan.fixed, files, _hide(result, False)):
            _say(f"cfglint: would fix {line}")
    text = diff(fix_plan, _hide(result, True))
    _say(f"cfglint: would fix {len(fix_plan.fixed)} finding(s) in {len(fix_plan.changes)} file(s)"
         + _unsafe_hint(len(fix_plan.unsafe)))
    _out(text, nl=False)
    return 1 if text else 0


def _fix(result, cfg, unsafe_fixes: bool, show_fixes: bool, lint):
    """``--fix``: write the fixes of ``result`` (safe ones; unsafe ones too with --unsafe-fixes),
    say what was done on standard error, and lint again; the result to report."""
    from .edit.fix import plan, shown_fixes, write
    from .model import Finding

    files, notes = _fixable_files(result)
    fix_plan = plan(result.findings, files, unsafe=unsafe_fixes)
    try:
        done = write(fix_plan)
    except OSError as err:
        _say(f"cfglint: error: cannot fix: {err.strerror or err}")
        sys.exit(2)
    for note in done.notes:
        _say(f"cfglint: {note}")
    if show_fixes:
        written = set(done.files)
        for line in shown_fixes([f for c in fix_plan.changes if c.display in written for f in c.fixed], files,
                                _hide(result, False)):
            _say(f"cfglint: fixed {line}")
    if done.fixed:
        _say(f"cfglint: fixed {done.fixed} finding(s)" + _unsafe_hint(len(fix_plan.unsafe)))
        result = lint()
    elif fix_plan.unsafe:
        _say(f"cfglint: fixed 0 finding(s){_unsafe_hint(len(fix_plan.unsafe))}")
    result.findings = sorted(result.findings + cfg.apply(notes), key=Finding.sort_key)
    return result


def _write_reports(outs: list[tuple[str, str | None]], result, code: int, baselined: int | None, fail_level: str,
                   unsafe_fixes: bool, statistics: bool) -> None:
    """Write each report of ``outs`` (format, file or None for standard output) from the one
    run's ``result``; the summary goes to standard error when every report goes to a file (or
    --statistics replaces the findings on standard output). Exits
    2 when a file cannot be written."""
    from .output import report

    summary = report.summarize(result.findings, result.units, baselined, unsafe_fixes)
    # past GitHub's limit a SARIF run leaves results out (credentials and errors kept first): said
    left_out = report.capped(result.findings)[1] if any(fmt == "sarif" for fmt, _ in outs) else None
    for fmt, path in outs:
        if path is None and statistics:
            body = _statistics(result.findings, fmt == "json")
        else:
            body = _report(fmt, result, code, baselined, fail_level, unsafe_fixes, summary)
        _emit(body, path)
    if statistics or all(path is not None for _, path in outs):   # no findings on standard output
        _say(report.summarize(result.findings, result.units, baselined, unsafe_fixes, left_out))
    elif left_out:
        _say(f"cfglint: warning: {report.left_out_text(left_out)}")


def _emit(body, path: str | None) -> None:
    """Write ``body`` (a string, or pieces written as they are made) to standard output, or to
    ``path``: atomically, parent directories made, never through a symbolic link (safeio).
    Exits 2 when the file cannot be written."""
    if path is None:
        for piece in [body] if isinstance(body, str) else body:
            _out(piece, nl=False)
        return
    from .read.safeio import atomic_write

    try:
        atomic_write(path, body, make_parents=True)
    except OSError as err:
        _say(f"cfglint: error: cannot write {path}: {err.strerror}")
        sys.exit(2)


def _report(fmt: str, result, code: int, baselined: int | None, fail_level: str, unsafe_fixes: bool, summary: str):
    """The report of ``result`` in ``fmt``: a string, or SARIF in pieces (written as they are
    made: the report of a large corpus is never one string)."""
    from .checks import all_rules
    from .output import report

    rules = all_rules()
    if fmt == "text":
        return report.text(result.findings, result.sources, summary)
    if fmt == "json":
        return report.as_json(result.findings, code, baselined)
    if fmt == "github":
        return report.github(result.findings)
    if fmt == "markdown":
        from .output.markdown import markdown

        return markdown(result.findings, rules, result.units, code, fail_level, baselined, unsafe_fixes)
    if fmt in ("gitlab", "junit", "rdjson"):   # CI systems other than GitHub (ciformats.py)
        from .output import ciformats

        if fmt == "gitlab":
            return ciformats.gitlab(result.findings, rules, result.sources)
        if fmt == "junit":
            return ciformats.junit(result.findings, result.units, fail_level)
        return ciformats.rdjson(result.findings, result.sources)
    from .edit.fix import fixes_of

    fixes = fixes_of(result.findings, result.files, _hide(result, False))
    return report.sarif_parts(result.findings, rules, result.sources, code, fixes)


def _statistics(findings, as_json: bool) -> str:
    """``--statistics``: active findings per rule, most first (as ruff prints them): count, rule,
    ``[*]`` when --fix fixes some of them, name; or, as JSON, a list of {rule, name, level,
    count, fixable, unsafe_fixable}."""
    import json

    from .checks import all_rules
    from .output.report import fixable

    rules = all_rules()
    per_rule: dict[str, list] = {}
    for f in findings:
        if not f.suppressed:
            per_rule.setdefault(f.rule_id, []).append(f)
    rows = []
    for rule_id, fs in sorted(per_rule.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        safe, unsafe = fixable(fs)
        rows.append({"rule": rule_id, "name": rules[rule_id].name if rule_id in rules else "",
                     "level": max((f.level for f in fs), key=("note", "warning", "error").index),
                     "count": len(fs), "fixable": safe, "unsafe_fixable": unsafe})
    if as_json:
        return json.dumps(rows, indent=2) + "\n"
    width = max((len(str(r["count"])) for r in rows), default=1)
    lines = [f"{r['count']:>{width}}  {r['rule']:<7} {'[*]' if r['fixable'] else '[-]' if r['unsafe_fixable'] else '   '} "
             f"{r['name']} ({r['level']})" for r in rows]
    return "".join(line + "\n" for line in lines)


@main.command("merge")
@click.argument("reports", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the merged report to FILE instead of standard output.")
def merge_reports(reports: tuple[str, ...], output: str | None) -> None:
    """Merge the SARIF reports of the parts of a sharded run (check --shard i/N --format sarif)
    into the SARIF report one run over everything writes: the same bytes, its exit code the
    highest of the parts'. Exit 0 when written; 2 when a report cannot be read or was written by
    another cfglint, knowledge or rule set."""
    from .output.merge import MergeError, merge
    from .read.paths import printable
    from .read.safeio import ReadError, read_bytes

    texts = []
    for path in reports:
        try:  # safeio: a regular file, bounded (a SARIF part of a large run is a few MB)
            texts.append((printable(path), read_bytes(path, 1 << 30).decode("utf-8")))
        except (ReadError, OSError, UnicodeDecodeError) as err:
            _say(f"cfglint: error: cannot read {printable(path)}: {err}")
            sys.exit(2)
    try:
        merged = merge(texts)
    except MergeError as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    _emit(merged, output)
    if output is not None:
        _say(f"cfglint: merged {len(reports)} report(s) into {printable(output)}")


@main.command("explain")
@click.argument("paths", nargs=-1, type=click.Path())
@click.option("--format", "-f", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="text, or JSON described by schemas/cfglint-explain.schema.json.")
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), default=None,
              help="Write the explanation to FILE instead of standard output.")
@click.option("--knowledge", "knowledge_files", multiple=True, type=click.Path(dir_okay=False),
              help="A YAML file of your own accelerators, models or parser names (as for check); repeatable.")
def explain_command(paths: tuple[str, ...], fmt: str, output: str | None, knowledge_files: tuple[str, ...]) -> None:
    """Show each deployment as cfglint resolved it: every process with its engine, release,
    launcher and wrappers, its flags and where each value came from (literal, ${VAR:-x} default,
    environment, YAML, engine default), its parallelism and per-GPU memory budget, and the
    topology. PATHS (default '.'): submissions, directories of them, launch files. Exit 0, or 2
    for a path that does not exist or a knowledge file that cannot be read."""
    import json

    from .knowledge import KnowledgeError, knowledge
    from .lint import lint_unit_deployment
    from .load.discover import discover
    from .load.submission import load_loose_file, load_submission
    from .output.explain import as_text, explain, report
    from .output.masking import redactor_of, token_pattern
    from .read.paths import printable

    try:
        kb = knowledge(tuple(knowledge_files))
    except KnowledgeError as err:
        _say(f"cfglint: error: {err}")
        sys.exit(2)
    targets = discover(list(paths) or ["."])
    if targets.missing:
        for m in targets.missing:
            _say(f"cfglint: error: no such file or directory: {printable(m)}")
        sys.exit(2)
    units = []
    loose = [(f, False) for f in targets.loose_files] + [(f, True) for f in targets.orphan_files]
    for kind, path, only_serving in [("sub", d, False) for d in targets.submissions] + [("loose", f, o) for f, o in loose]:
        within, name = targets.roots.get(path, (None, None))
        sub = load_submission(path, kb=kb, tree=within) if kind == "sub" else \
            load_loose_file(path, within=within, within_name=name)
        findings, deployment = lint_unit_deployment(sub, kb)
        if only_serving and not deployment.processes:
            continue   # a script under a walked directory that starts no engine
        redactor = redactor_of(findings, {tf.display: tf.lines for tf in sub.texts}, token_pattern(kb.secrets))
        units.append(explain(sub, deployment, kb, lambda text, r=redactor: r.hide(text)))
    doc = report(units)
    body = json.dumps(doc, indent=2) + "\n" if fmt == "json" else as_text(doc)
    if not units:
        _say("cfglint: warning: no submission or launch file found to explain")
    _emit(body, output)


_STDIN_OVERLAY = None   # check's standard input as a file (safeio.workspace), open until the process ends


def _stdin_targets(paths: tuple[str, ...], stdin_filename: str | None, fix: bool,
                   max_file_size: int | None) -> list[str]:
    """The paths ``check`` lints: PATHS (default ``.``), with ``-`` replaced by ``--stdin-filename``,
    whose text is then standard input for the rest of the run (read/safeio.py's overlay, the one
    place every reader goes through: the file's submission is linted with it, its other files
    from disk). ``--stdin-filename`` without PATHS means ``-``. Exit 2: ``-`` without
    ``--stdin-filename``, ``--stdin-filename`` with PATHS but no ``-``, or ``--fix`` (standard
    input cannot be written back)."""
    if stdin_filename is not None and not paths:
        paths = ("-",)
    if "-" not in paths:
        if stdin_filename is not None:
            _say("cfglint: error: --stdin-filename names the file standard input stands for: pass '-' among the "
                 "PATHS (cfglint check - --stdin-filename path/run.sh)")
            sys.exit(2)
        return list(paths) or ["."]
    if stdin_filename is None:
        _say("cfglint: error: '-' lints standard input: name the file it stands for with --stdin-filename "
             "(cfglint check - --stdin-filename path/run.sh)")
        sys.exit(2)
    if fix:
        _say("cfglint: error: --fix writes files in place and cannot write standard input back; "
             "lint the file itself to fix it")
        sys.exit(2)
    from .read.safeio import MAX_BYTES, linted_root, workspace

    # one byte more than the largest file read, so that an oversized input is reported, not cut
    data = sys.stdin.buffer.read(max(max_file_size or 0, MAX_BYTES) + 1)
    global _STDIN_OVERLAY
    # the overlay lasts for the rest of the command (the process ends with it); the reference kept
    # here keeps the block open (a collected generator would close it)
    _STDIN_OVERLAY = workspace(linted_root(stdin_filename), {stdin_filename: data}, confine=False)
    _STDIN_OVERLAY.__enter__()
    return [stdin_filename if p == "-" else p for p in dict.fromkeys(paths)]


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


@main.command("server")
def language_server() -> None:
    """Run the language server (LSP over standard input and output) for editors: cfglint check's
    diagnostics as you type, code actions for the fixes, hovers on flags and keys.

    Needs the server extra: pip install 'cfglint-serving[server]'."""
    import importlib.util

    if importlib.util.find_spec("pygls") is None or importlib.util.find_spec("lsprotocol") is None:
        _say("cfglint: error: cfglint server needs pygls and lsprotocol: install the server extra "
             "(pip install 'cfglint-serving[server]')")
        sys.exit(2)
    import logging

    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)   # standard output is the protocol's
    from .read.shell import prestart_parser
    from .server import serve

    prestart_parser()   # forked now, before the server's reader thread starts
    serve()


@main.command("flags")
@click.argument("engine", type=click.Choice(["vllm", "sglang", "dynamo"]))
@click.option("--has", "option", metavar="FLAG", default=None,
              help="Which releases have FLAG (--swap-space or swap-space), in which launcher, and what it is there.")
def flags_lookup(engine: str, option: str | None) -> None:
    """The releases cfglint holds of ENGINE, or (--has) which of them accept a flag. Exit 1 when
    no release has the flag."""
    from .knowledge import knowledge
    from .knowledge.flaginfo import describe, flag_info
    from .output.neutral import neutralize

    kb = knowledge()
    data = kb.engine_releases(engine)
    if option is None:
        _out(f"{data.label}: {len(data.releases)} releases ({', '.join(data.releases)}); "
                   f"launchers: {', '.join(data.launchers())}")
        return
    _out(neutralize(describe(kb, engine, option), keep_newlines=True))
    sys.exit(0 if flag_info(kb, engine, option) else 1)


@main.command("rules")
def list_rules() -> None:
    """List every rule: id, name, default level, summary."""
    from .checks import all_rules

    rules = list(all_rules().values())
    width = max(len(r.name) for r in rules)   # columns aligned whatever the longest name
    for r in rules:
        _out(f"{r.id:8} {r.name:{width}} {r.level:8} {r.summary}")


@main.command("rule")
@click.argument("rule_id")
def show_rule(rule_id: str) -> None:
    """Explain one rule, by its id (TOP001) or its name (accelerator-count-mismatch): what it
    checks, why, a failing and a passing example, the fix, sources (as plain text; the Markdown
    page is docs/rules/ID.md)."""
    from .checks import all_rules
    from .output.ruledocs import render

    rules = all_rules()
    r = rules.get(rule_id.upper()) or next((x for x in rules.values() if x.name == rule_id.strip().lower()), None)
    if r is None:
        _say(f"cfglint: error: unknown rule {rule_id!r}; see 'cfglint rules'")
        sys.exit(2)
    _out(render(r, markdown=False))   # a terminal reads text: no Markdown entities


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
