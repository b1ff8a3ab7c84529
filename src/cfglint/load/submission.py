"""Load: read and parse every file of a submission once, with positions.

Produces a :class:`Submission`: the manifest (as a positioned YAML tree and as plain data),
each launch file parsed as shell or as a worker argument file, each engine YAML parsed, and
the findings of this stage: IO001 (unreadable / unparsable), SUB001 (manifest schema),
SUB002 (named file missing or outside the submission).
"""

from __future__ import annotations

import bisect
import os
import re
from dataclasses import field

from ..knowledge import knowledge
from ..knowledge.configkeys import config_engine
from ..knowledge.llmapi import is_llm_api, llm_api_markers, other_engine_keys
from ..model import Finding, Span, record
from ..read.argsfile import parse_args_file
from ..read.paths import display_path, printable
from ..read.safeio import inside, lexists, real_path, resolving
from ..read.k8s.command import is_script
from ..read.shell import Command, ParserCrash, ShellScript, parse_shell
from ..read.shell.positions import PlacedText
from ..read.textfile import MAX_BYTES, NotText, ReadError, TextFile, read_text
from ..read.yamlsrc import (HOLDS_DUPLICATES, HOLDS_FOREIGN_TAGS, HOLDS_MERGES, MAX_NODES, YamlError, YMap, YNode, YScalar,
                            YSeq, foreign_tags, holds, key_span, nodes, parse_yaml, parse_yaml_all, to_python,
                            walk_path)
from ..schema.validation import validate, validator
from .discover import MANIFEST, serving_candidates
from .edits import MAX_WRITTEN, Edited, edited


ROLES_BY_NAME = (
    (re.compile(r"(^|[^a-z])(ctx|context|prefill)([^a-z]|$)"), "prefill"),
    (re.compile(r"(^|[^a-z])(gen|generation|decode)([^a-z]|$)"), "decode"),
)


@record
class ConfigFile:
    """An engine YAML file of the submission (``path`` as named in the manifest)."""

    path: str
    display: str
    root: YNode | None
    role: str | None = None       # declared in the manifest's files.configs entry
    used_by: int = 0
    written_by: str | None = None  # the launch script that writes it with a heredoc (display path)
    written_in: object = None      # the Kubernetes container whose script writes it (read.k8s.Container)
    written_at: Span | None = None  # where the script writes it (the heredoc body's first line)
    unread: str | None = None      # written by a script, its text not known statically (root None): why
    # keys whose value the script puts in at run time (load.edits), taken out of ``root``: (key path,
    # where the value is written, why it is not known)
    unknown: list[tuple[tuple, Span, str]] = field(default_factory=list)
    # linted on its own: the engine whose --config file its keys make it (knowledge.configkeys)
    engine: str | None = None


def role_from_name(path: str) -> str | None:
    """prefill / decode from a file name such as ``ctx_config.yaml`` or ``decode.args``."""
    base = os.path.basename(path).lower()
    for pattern, role in ROLES_BY_NAME:
        if pattern.search(base):
            return role
    return None


@record
class Submission:
    """Everything one lint unit consists of, parsed; ``manifest`` is {} without a manifest."""

    root: str
    display: str
    manifest_node: YNode | None = None
    manifest: dict = field(default_factory=dict)
    texts: list[TextFile] = field(default_factory=list)       # every file read, for text rules
    # files read that no rule but the credential scan (RED002) reads: YAML outside a submission
    # that is no engine config, and the bytes of a file that is no UTF-8 text (TextFile.lossy);
    # with the YAML trees of those that parsed
    scan_only: list[TextFile] = field(default_factory=list)
    scan_only_trees: list[YNode] = field(default_factory=list)
    max_bytes: int = MAX_BYTES                                # files over this are not read (IO001)
    within: str | None = None        # every file read must really lie inside this directory
    within_name: str | None = None   # how messages name it
    launches: list[tuple[str, ShellScript | Command, str | None, bool]] = field(default_factory=list)
    configs: list[ConfigFile] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    # files in the submission directory the manifest does not name that may be launch files or
    # engine configs (absolute path), with the span of the manifest's ``files`` key (SUB003)
    unlisted: list[tuple[str, Span | None]] = field(default_factory=list)
    # a YAML linted on its own with no engine key: only its syntax was checked (COV001 says so)
    unknown_yaml: Span | None = None
    # that YAML names engine settings (a top-level key spelled as an SGLang / vLLM flag or a
    # TensorRT-LLM LLM API key) without being a config cfglint reads: a serving file it could not check
    engine_like_yaml: bool = False
    # a YAML linted on its own whose keys are flags of these engines' --config files equally
    # (knowledge.configkeys): which engine reads it is not known, COV001 says so
    config_tied: tuple[str, ...] = ()
    # IO001 duplicate-key findings whose two values are equal (an engine config makes them warnings)
    same_duplicates: list[Finding] = field(default_factory=list)
    # span of a node inside a mapping merged with '<<' -> the '<<' keys merging it (merge_related)
    merged_at: dict[Span, list[Span]] = field(default_factory=dict)
    # Kubernetes manifests: every object read (display path, node), and the kinds recognised but
    # not modelled, with the span of their kind (COV001 says they were not checked)
    k8s_objects: list[tuple[str, YMap]] = field(default_factory=list)
    k8s_not_modelled: list[tuple[str, Span]] = field(default_factory=list)
    # Helm chart templates (Go template actions that make a file YAML only once rendered): the
    # span of their first action; not parsed, COV001 says so
    templates: list[Span] = field(default_factory=list)
    # characters the sed substitutions of the configs its scripts write may still write (load.edits)
    edit_budget: list[int] = field(default_factory=lambda: [MAX_WRITTEN])

    @property
    def has_manifest(self) -> bool:
        return self.manifest_node is not None


def _file_span(display: str) -> Span:
    return Span(display, 1, 1, 1, 1)


def digest(tf: TextFile) -> str:
    """The SHA-256 of a file's bytes as read: :attr:`Finding.covers` of a finding saying that the
    file was left unchecked."""
    from ..knowledge.kbcache import sha256

    return sha256(tf.data).hexdigest()


def read_file(path: str, display: str, sub: Submission, named_at: Span | None = None) -> TextFile | None:
    """Read a file (its real path must stay inside ``sub.within``: no link out of the submission or
    the working tree is followed); on failure an IO001 finding at ``named_at`` (the manifest entry
    naming the file) or, without one, at the file itself."""
    try:
        tf = read_text(path, display, sub.max_bytes, sub.within, sub.within_name)
    except NotText as err:   # read, but no text: its bytes are still scanned for credentials (RED002)
        sub.findings.append(Finding("IO001", f"cannot read {display}: {err}", named_at or _file_span(display),
                                    covers=digest(err.file)))
        sub.scan_only.append(err.file)
        return None
    except ReadError as err:
        sub.findings.append(Finding("IO001", f"cannot read {display}: {err}", named_at or _file_span(display)))
        return None
    sub.texts.append(tf)
    return tf


def yaml_document(tf: TextFile, sub: Submission) -> YNode | None:
    """The one YAML document of a file read by :func:`read_file` (None: empty, or it does not parse,
    an IO001 finding); its duplicate keys and foreign tags are IO001 findings, its merges noted."""
    try:
        root = parse_yaml(tf.text, tf.display)
    except YamlError as err:
        sub.findings.append(Finding("IO001", f"cannot parse {tf.display}: {err}", err.span or _file_span(tf.display),
                                    covers=digest(tf)))
        return None
    _report(root, tf.display, sub)
    return root


def _report(root: YNode | None, display: str, sub: Submission) -> None:
    """The findings and merge notes of a parsed YAML document: duplicate keys, then foreign tags
    (IO001), then the merge keys noted; each walk runs only when the tree holds such a node
    (:func:`cfglint.read.yamlsrc.holds`, recorded as the tree was built: most hold none)."""
    found = holds(root)
    if found & HOLDS_DUPLICATES:
        _report_duplicates(root, sub)
    if found & HOLDS_FOREIGN_TAGS:
        _report_tags(root, display, sub)
    if found & HOLDS_MERGES:
        _note_merges(root, sub)


TAG_MESSAGE = "YAML tag"


def _report_tags(root: YNode | None, display: str, sub: Submission) -> None:
    """IO001 at each tag a safe loader cannot construct: the engines (and Dynamo, and the
    submission tooling) read YAML with safe loaders, which refuse the whole file at launch.
    cfglint keeps the node as plain text and never constructs it."""
    for tag, span in foreign_tags(root):
        sub.findings.append(Finding(
            "IO001", f"{TAG_MESSAGE} '{tag}' is not a standard YAML type: safe loaders (yaml.safe_load, which the "
                     f"engines use) refuse {display} with 'could not determine a constructor for the tag'; "
                     f"remove the tag and write the value as plain YAML", span))


def _report_duplicates(node: YNode | None, sub: Submission) -> None:
    for n in nodes(node):  # each mapping once, however many aliases name it
        if isinstance(n, YMap):
            values = _values_at(n)
            for first, again in n.duplicates:
                f = Finding("IO001",
                            f"duplicate key '{again.text}' (first at line {first.span.line}); YAML loaders keep only "
                            f"the last value", again.span, related=[(first.span, "first definition")])
                a, b = values.get(first.span), values.get(again.span)
                if a is not None and a == b:
                    sub.same_duplicates.append(f)
                sub.findings.append(f)


def _values_at(n: YMap) -> dict:
    """Key span -> (type, value) of every scalar value of ``n`` (``n.items`` holds a repeated key
    each time it is written)."""
    out = {}
    for k, v in n.items:
        if isinstance(v, YScalar):
            out[k.span] = (type(v.value), v.value)
    return out


SAME_VALUE = ("with the same value both times: yaml.safe_load, which the engines read their config files with, keeps "
              "the last one, the same, so the file reads as if it were written once (a change to the first one "
              "would do nothing); remove one")


def _same_value_duplicates(sub: Submission, display: str) -> None:
    """The duplicate keys of an engine config ``display`` whose two values are equal: a warning,
    not an error (vLLM and SGLang read --config with yaml.safe_load: the last value wins in silence,
    vllm==0.33.0 vllm/utils/argparse_utils.py load_config_file, sglang==0.5.23
    sglang/srt/utils/server_args_config_parser.py; TensorRT-LLM reads its YAML with yaml.safe_load too)."""
    for f in sub.same_duplicates:
        if f.span.path == display and f.level is None:
            f.level = "warning"
            f.message = f.message.replace("YAML loaders keep only the last value", SAME_VALUE)


MAX_MERGE_NOTES = 3  # '<<' keys named as related locations of one finding


def _note_merges(root: YNode | None, sub: Submission) -> None:
    """Remember, for every node of a mapping merged with ``<<`` (at any depth), the ``<<`` keys
    that merge it: a finding there gets them as related locations (:func:`merge_related`). The
    walk visits each node once per merge key, at most MAX_NODES nodes in all."""
    budget = MAX_NODES
    for n in nodes(root):
        if not isinstance(n, YMap):
            continue
        for mkey, source in n.merges:
            for inner in nodes(source):
                budget -= 1
                if budget < 0:
                    return
                sites = sub.merged_at.setdefault(inner.span, [])
                if len(sites) < MAX_MERGE_NOTES and mkey.span not in sites:
                    sites.append(mkey.span)


def merge_related(findings: list[Finding], sub: Submission) -> None:
    """Add to each finding located at a node that a ``<<`` merge key merges the ``<<`` keys
    that merge it: the value is written at the anchor, and used where it is merged."""
    if not sub.merged_at:
        return
    for f in findings:
        for site in sub.merged_at.get(f.span, ()):
            if all(s != site for s, _ in f.related):
                f.related.append((site, "merged into this mapping here by the YAML merge key '<<'"))


def manifest_validator():
    """The compiled manifest JSON Schema (compiled once per process)."""
    return validator("submission.schema.json")


def _unknown_names(node: YNode, data: dict, kb) -> list[Finding]:
    """Warnings for an accelerator or model the knowledge base does not know: the hardware
    and parser-family checks cannot run for them."""
    import difflib

    out = []
    system = data.get("system") if isinstance(data.get("system"), dict) else {}
    acc = system.get("accelerator")
    target = walk_path(node, ("system", "accelerator"))
    if isinstance(acc, str) and acc and kb.accelerator(acc) is None and target is not None:
        names = kb.accelerator_names()
        close = difflib.get_close_matches(acc, names, n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else f"; known: {', '.join(names)}"
        out.append(Finding("SUB001", f"system/accelerator: '{acc}' is not in the knowledge base (rules/accelerators.yaml), "
                                     f"so hardware checks are skipped{hint}", target.span, level="warning"))
    return out


def _file_refs(node: YNode | None, data: dict, key: str) -> list[tuple[str, str | None, Span]]:
    """(path, role, span) of files.launch / files.configs entries that are well formed."""
    files = data.get("files") if isinstance(data.get("files"), dict) else {}
    items = files.get(key) if isinstance(files.get(key), list) else []
    out = []
    for i, item in enumerate(items):
        if isinstance(item, str):
            path, role, npath = item, None, ("files", key, i)
        elif isinstance(item, dict) and isinstance(item.get("path"), str):
            path, role, npath = item["path"], item.get("role") if isinstance(item.get("role"), str) else None, ("files", key, i, "path")
        else:
            continue
        target = walk_path(node, npath)
        out.append((path, role, target.span if target is not None else Span("?", 1, 1, 1, 1)))
    return out


def _inside(root: str, rel: str) -> str | None:
    """Absolute path of ``rel`` if it stays inside ``root`` (symlinks resolved), else None.
    Raises ValueError for a name no file can have (a NUL byte, a lone surrogate)."""
    os.fsencode(rel)
    if "\x00" in rel:
        raise ValueError("NUL byte")
    if os.path.isabs(rel):
        return None
    full = real_path(os.path.join(root, rel))
    real_root = real_path(root, directory=True)
    return full if full == real_root or full.startswith(real_root + os.sep) else None


def load_submission(root: str, kb=None, max_bytes: int = MAX_BYTES, tree: str | None = None) -> Submission:
    """Load the submission in directory ``root``. Every file is read only if its real path stays
    inside ``root`` (links inside it are followed, links out of it are not); ``tree`` (the linted
    tree: the git working tree or the directory named on the command line): the submission
    directory itself must really lie inside it. Never raises for bad input."""
    with resolving():   # each directory's real path looked up once while loading it
        return _load_submission(root, kb, max_bytes, tree)


def _load_submission(root: str, kb, max_bytes: int, tree: str | None) -> Submission:
    sub = Submission(root=root, display=display_path(root), max_bytes=max_bytes, within=root,
                     within_name=f"the submission directory {display_path(root)}")
    mdisplay = display_path(os.path.join(root, MANIFEST))
    if tree is not None and not inside(real_path(root, directory=True), real_path(tree, directory=True)):
        sub.findings.append(Finding("IO001", f"cannot read {mdisplay}: the submission directory {sub.display} is reached through a "
                                             "symbolic link that leads outside the working tree; cfglint does not "
                                             "follow links out of it", _file_span(mdisplay)))
        return sub
    tf = read_file(os.path.join(root, MANIFEST), mdisplay, sub)
    node = yaml_document(tf, sub) if tf else None
    if tf is not None and node is None and not any(f.rule_id == "IO001" for f in sub.findings):
        sub.findings.append(Finding("SUB001", "submission.yaml is empty", _file_span(mdisplay)))
    if node is None:
        return _without_manifest(sub, root)
    sub.manifest_node = node
    data = to_python(node)
    if not isinstance(data, dict):
        sub.findings.append(Finding("SUB001", "(top level): the manifest must be a mapping", node.span))
        return _without_manifest(sub, root)
    sub.manifest = data
    sub.findings.extend(validate("SUB001", "submission.schema.json", node, data, mdisplay))
    sub.findings.extend(_unknown_names(node, data, kb or knowledge()))

    seen: set[str] = set()
    named: set[Span] = set()
    for key in ("launch", "configs", "deploy"):
        for rel, role, span in _file_refs(node, data, key):
            if span in named:
                continue  # the same YAML node again (an alias): checked once
            named.add(span)
            try:
                full = _inside(root, rel)
            except ValueError:
                sub.findings.append(Finding("SUB002", f"files.{key}: '{printable(rel)}' is not a file name (it holds a NUL "
                                                      "byte or an invalid character)", span))
                continue
            if full is None:
                sub.findings.append(Finding("SUB002", f"files.{key}: '{rel}' is outside the submission directory; name files relative to it", span))
                continue
            if not lexists(full):   # safeio: a file open in an editor, not saved yet, counts
                sub.findings.append(Finding("SUB002", f"files.{key}: '{rel}' does not exist in {sub.display}", span))
                continue
            if full in seen:
                continue
            seen.add(full)
            ftf = read_file(full, display_path(full), sub, named_at=span if os.path.isdir(full) else None)
            if ftf is None:
                continue
            load_file(ftf, rel, role, key == "configs", sub, deploy=key == "deploy")
    files_at = key_span(node, ("files",)) or node.span
    sub.unlisted = [(path, files_at) for path in serving_candidates(root)
                    if real_path(path) not in seen]
    return sub


def _without_manifest(sub: Submission, root: str) -> Submission:
    """A submission whose manifest cannot be used (unreadable, empty, not a mapping): its launch
    files and engine configs are still linted, each on its own (as pre-commit, given the file,
    lints it), so a broken or emptied manifest cannot hide what they hold (a leaked secret).
    ``unlisted`` entries without a ``files`` span get no SUB003."""
    sub.unlisted = [(path, None) for path in serving_candidates(root)]
    return sub


# a Go template action of a Helm chart: a control action on a line of its own, or a reference to
# the chart's values / helpers (helm.sh/docs/chart_template_guide/: {{ .Values.x }}, {{ include }},
# {{- if }} ... {{- end }})
_TEMPLATE_ACTION = re.compile(r"^[ \t]*\{\{-?\s*(?:if|else|end|range|with|define|template|include|/\*)\b|"
                              r"\{\{-?\s*(?:\.Values|\.Release|\.Chart|include |template )", re.M)


def _yaml_docs(tf: TextFile, sub: Submission) -> list[YNode] | None:
    """Every document of a YAML file (duplicates, tags and merges noted as for one), or None
    after an IO001 when it cannot be parsed."""
    try:
        docs = parse_yaml_all(tf.text, tf.display, keep_empty=True)
    except YamlError as err:
        action = _TEMPLATE_ACTION.search(tf.text)
        if action is not None:
            # a Helm chart template ({{- if ... }}, {{ include ... }}, {{ .Values.x }}): YAML only once
            # `helm template` renders it; not a syntax error of the file as published
            line = tf.text.count("\n", 0, action.start()) + 1
            col = action.start() - (tf.text.rfind("\n", 0, action.start()) + 1) + 1
            sub.templates.append(Span(tf.display, line, col, line, col + 2))
            return None
        sub.findings.append(Finding("IO001", f"cannot parse {tf.display}: {err}", err.span or _file_span(tf.display),
                                    covers=digest(tf)))
        return None
    for root in docs:
        _report(root, tf.display, sub)
    return docs


def load_yaml(tf: TextFile, rel: str, role: str | None, sub: Submission, deploy: bool) -> None:
    """A YAML file: Kubernetes manifests (any file whose documents hold an object with
    ``apiVersion`` and ``kind``, or one listed under ``files.deploy``) become launches
    (:mod:`cfglint.read.k8s`); any other is an engine config, which must be one document (the
    engines read it with ``yaml.safe_load``, which refuses a stream of several)."""
    from ..read import k8s

    docs = _yaml_docs(tf, sub)
    if docs is None:
        if not deploy and not any(t.path == tf.display for t in sub.templates):
            sub.configs.append(ConfigFile(path=os.path.normpath(rel), display=tf.display, root=None, role=role))
        return
    if deploy or any(k8s.is_object(d) or k8s.meant_as_object(d) for d in docs):
        manifest = k8s.read_manifest(docs, tf.lines, tf.display, tuple(knowledge().device_resources))
        sub.findings += manifest.findings
        sub.k8s_objects += [(tf.display, obj) for obj in manifest.objects]
        sub.k8s_not_modelled += manifest.not_modelled
        by_role: dict[str | None, list] = {}
        for cmd, crole in manifest.commands:
            by_role.setdefault(crole, []).append(cmd)
        for crole, cmds in by_role.items():
            pod_role = crole if crole in ("prefill", "decode", "server") else None
            if pod_role is None and crole is not None:
                pod_role = role_from_name(crole)
            if pod_role is None and role is None and cmds and cmds[0].origin is not None:
                pod_role = role_from_name(cmds[0].origin.group.name)
            sub.launches.append((tf.display, ShellScript(commands=cmds), pod_role or role, False))
        _container_configs([cmd for cmd, _role in manifest.commands], tf, sub)
        if deploy and not by_role:   # listed as a deployment but runs no container command: COV001 says so
            sub.launches.append((tf.display, ShellScript(), role, False))
        return
    if len(docs) > 1:  # as parse_yaml reports it
        sub.findings.append(Finding("IO001", f"cannot parse {tf.display}: expected one YAML document, found {len(docs)}",
                                    docs[1].span))
        root = None
    else:
        root = docs[0] if docs else None
    _same_value_duplicates(sub, tf.display)
    sub.configs.append(ConfigFile(path=os.path.normpath(rel), display=tf.display, root=root, role=role))


def load_file(tf: TextFile, rel: str, role: str | None, as_config: bool, sub: Submission,
              deploy: bool = False) -> None:
    """Parse a file read by :func:`read_file` into ``sub``: YAML (and anything ``as_config`` or
    ``deploy``) by :func:`load_yaml`, ``*.args`` as a worker argument file, anything else as a
    shell script (its parse errors and CRLF line ends are IO001 findings)."""
    lower = rel.lower()
    if deploy or as_config or lower.endswith((".yaml", ".yml", ".json")):
        load_yaml(tf, rel, role, sub, deploy)
    elif lower.endswith(".args"):
        sub.launches.append((tf.display, parse_args_file(tf.text, tf.display), role, True))
    else:
        try:
            script = parse_shell(tf.text, tf.display)
        except ParserCrash as err:
            sub.findings.append(Finding("IO001", f"cannot parse {tf.display}: {err}",
                                        _file_span(tf.display), covers=digest(tf)))
            return
        continued = [n for n, line in enumerate(tf.lines, start=1) if line.endswith("\\")] if tf.had_crlf else []
        if continued:
            n = continued[0]
            col = len(tf.lines[n - 1])
            sub.findings.append(Finding(
                "IO001", "CRLF line ends: bash reads backslash + CR as no line continuation, so this command "
                         "ends here (ShellCheck SC1017); save the file with LF line ends",
                Span(tf.display, n, col, n, col + 1), level="warning"))
        if script.errors:
            first_line = min(e.line for e in script.errors)
            span = min((e for e in script.errors if e.line == first_line),
                       key=lambda e: (e.end_line - e.line, e.end_col - e.col))
            line = tf.lines[span.line - 1] if span.line <= len(tf.lines) else ""
            near = line[span.col - 1:span.col + 39].strip() if span.end_line == span.line else line[span.col - 1:].strip()[:40]
            sub.findings.append(Finding(
                "IO001", f"shell syntax error near '{near}' (unbalanced quote, bracket or keyword?); "
                         "the commands around it may be misread", span, level="warning"))
        sub.launches.append((tf.display, script, role, False))
        _written_configs(script, tf, sub)


_NOT_SETTINGS = {type(None): "an empty YAML", YSeq: "a YAML list", YScalar: "a single YAML value"}
MAX_WRITTEN_CONFIGS = 64  # engine configs per submission (heredocs included): more is no launch
MAX_SCRIPTS = 64          # container scripts (bash -c) of one manifest read for the configs they write
EXPANDS = "the script writes it with a heredoc that expands shell values known only at run time"


class _Placer:
    """Spans of a YAML parsed from a heredoc's body (edited by load.edits) -> spans in the file:
    each character back to its place in the body (``origin``), the body's lines to the script's
    (the body starts at line ``line``), and the script's characters to the file's (``placed``: a
    Kubernetes container's ``bash -c`` string, placed in its manifest; None: the script is the file)."""

    def __init__(self, text: str, origin: list[int] | None, body: str, line: int, placed: PlacedText | None,
                 display: str):
        self.text_starts = _line_starts(text)
        self.body_starts = _line_starts(body)
        self.origin, self.line, self.placed, self.display = origin, line, placed, display

    @staticmethod
    def _offset(starts: list[int], line: int, col: int) -> int:
        return starts[min(max(line, 1), len(starts)) - 1] + col - 1

    def body_point(self, offset: int) -> tuple[int, int]:
        """(line, column) in the script of character ``offset`` of the body."""
        i = bisect.bisect_right(self.body_starts, offset) - 1
        return self.line + i, offset - self.body_starts[i] + 1

    def of_body(self, a: int, b: int) -> Span:
        """The span of the body's characters [a, b) in the file."""
        l1, c1 = self.body_point(a)
        l2, c2 = self.body_point(max(b, a))
        span = Span(self.display, l1, c1, l2, c2)
        return self.placed.span(span) if self.placed is not None else span

    def body_range(self, span: Span) -> tuple[int, int]:
        """Body offsets [a, b) of a span of the edited text."""
        a = self._offset(self.text_starts, span.line, span.col)
        b = self._offset(self.text_starts, span.end_line, span.end_col)
        if self.origin is None:
            return a, b
        n = len(self.origin)
        oa = self.origin[a] if a < n else (self.origin[-1] + 1 if n else 0)
        ob = self.origin[b - 1] + 1 if a < b <= n else oa
        return oa, max(ob, oa)

    def __call__(self, span: Span) -> Span:
        return self.of_body(*self.body_range(span))

    def of_script(self, span: Span) -> Span:
        """A span of the script (a command of it) in the file."""
        span = Span(self.display, span.line, span.col, span.end_line, span.end_col)
        return self.placed.span(span) if self.placed is not None else span


def _line_starts(text: str) -> list[int]:
    return [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]


def _moved(root: YNode | None, place) -> YNode | None:
    """``root`` with every span moved by ``place``. Nodes shared through YAML aliases move once."""
    for n in nodes(root):
        n.span = place(n.span)
    return root


def _run_time_value(shown: str, where: Span) -> str:
    return f"the script edits it at run time (line {where.line}: {shown}), putting in a value known only at run time"


def _at_run_time(root: YNode | None, ed: Edited, place: _Placer) -> list[tuple[tuple, Span, str]] | None:
    """The values of ``root`` (spans still in the edited text) a run-time replacement writes
    (``ed.unknown``), taken out of their mappings: (key path, span in the file, why) each; None when
    one falls anywhere else than inside a scalar value of a mapping (a key, a list item, a comment)."""
    if not ed.unknown:
        return []
    items: list[tuple[tuple, YMap, YScalar, YScalar, tuple[int, int]]] = []
    keys: list[tuple[int, int]] = []
    stack: list[tuple[tuple, YNode]] = [((), root)] if root is not None else []
    seen: set[int] = set()
    while stack:
        path, n = stack.pop()
        if id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, YMap):
            for k, v in n.items:
                keys.append(place.body_range(k.span))
                if isinstance(v, YScalar):
                    items.append(((*path, k.value), n, k, v, place.body_range(v.span)))
                else:
                    stack.append(((*path, k.value), v))
        elif isinstance(n, YSeq):
            stack.extend(((*path, i), item) for i, item in enumerate(n.items) if not isinstance(item, YScalar))
            if any(isinstance(item, YScalar) for item in n.items):
                keys += [place.body_range(item.span) for item in n.items if isinstance(item, YScalar)]
    out: dict[int, tuple[tuple, YMap, YScalar, YScalar, str, Span]] = {}
    for u1, u2, cmd, cmd_span in ed.unknown:
        hit = next((it for it in items if it[4][0] <= u1 and u2 <= it[4][1]), None)
        if hit is None or any(a < u2 and u1 < b for a, b in keys):
            return None
        why = _run_time_value(cmd, place.of_script(cmd_span))
        out.setdefault(id(hit[3]), (*hit[:4], why, place(hit[3].span)))
    found = []
    for path, parent, k, v, why, span in out.values():
        parent.items = [(a, b) for a, b in parent.items if b is not v]
        found.append((path, span, why))
    return found


def _written_configs(script: ShellScript, tf: TextFile, sub: Submission, placed: PlacedText | None = None,
                     container: object = None) -> None:
    """Engine YAML a launch script writes with a heredoc (``cat <<EOF > extra.yaml``): an
    engine config at that path, parsed with positions inside the heredoc (the script's lines; a
    Kubernetes container's script: the manifest's, by ``placed``), used when a flag names the path,
    after the edits the script makes to it later (load.edits: ``sed -i s/__X__/$X/`` applied). A
    heredoc that expands a shell value inside, or a file the script edits in a way not read, stays
    unreadable (root None, ``unread`` says why): a flag naming it is reported as not checked."""
    for n, wf in enumerate(script.files):
        if wf.path is None or not wf.path.lower().endswith((".yaml", ".yml")):
            continue
        root = None
        if len(sub.configs) >= MAX_WRITTEN_CONFIGS:
            break
        path = os.path.normpath(wf.path)
        if _overwritten(script, n, path):
            continue
        unread, unknown = None, []
        if not wf.static:
            unread = EXPANDS
            if wf.dynamic is not None:
                shown, where = wf.dynamic
                shown = shown if len(shown) <= 60 else shown[:60].rstrip() + " ..."
                line = _Placer("", None, wf.text, wf.line, placed, tf.display).of_script(where).line
                unread = f"{EXPANDS} (line {line}: {shown})"
        else:
            ed = edited(wf, script, path, sub.edit_budget)
            place = _Placer(ed.text, ed.origin, wf.text, wf.line, placed, tf.display)
            if ed.opaque is not None:
                what, shown, where = ed.opaque
                unread = f"the script {what} (line {place.of_script(where).line}: {shown})"
            else:
                try:
                    root = parse_yaml(ed.text, tf.display)
                except YamlError as err:
                    span = place(err.span) if err.span is not None else place.of_script(wf.span)
                    sub.findings.append(Finding("IO001", f"cannot parse the YAML {tf.display} writes to {wf.path}: {err}",
                                                span))
                else:
                    found = _at_run_time(root, ed, place)
                    if not isinstance(root, YMap):
                        # an engine reads its config file as a mapping of settings (yaml.safe_load, then
                        # each key): an empty file, a list or one value holds none cfglint can check
                        what = _NOT_SETTINGS.get(type(root), "no mapping")
                        root, unread = None, f"the script writes {what} there, not a mapping of settings"
                    elif found is None:
                        root, unread = None, _run_time_value(ed.unknown[0][2], place.of_script(ed.unknown[0][3]))
                    else:
                        unknown = found
                        root = _moved(root, place)
                        _report(root, tf.display, sub)
                        _same_value_duplicates(sub, tf.display)
        at = Span(tf.display, wf.line, 1, wf.line, 1)   # the body's first line (the destination word may be a $VAR's value)
        at = placed.span(at) if placed is not None else at
        sub.configs.append(ConfigFile(path=path, display=tf.display, root=root, written_by=tf.display,
                                      written_in=container, unread=unread, unknown=unknown, written_at=at))


def _overwritten(script: ShellScript, n: int, path: str) -> bool:
    """Whether the heredoc ``script.files[n]`` (to ``path``) is written over by a later one on every
    run before any command names the file: no engine reads what it wrote."""
    wf = script.files[n]
    for other in script.files[n + 1:]:
        if other.path is None or os.path.normpath(other.path) != path:
            continue
        if other.append or not other.certain:
            return False
        for cmd in script.commands[wf.after:other.after]:
            if any(w.static and (os.path.normpath(w.text) == path or w.text.endswith("=" + path)) for w in cmd.words[1:]):
                return False
        return True
    return False


def _container_configs(cmds: list[Command], tf: TextFile, sub: Submission) -> None:
    """Engine YAML the ``bash -c`` scripts of a manifest's containers write with a heredoc (see
    :func:`_written_configs`), each seen by its own container only, placed in the manifest."""
    scripts = 0
    for cmd in cmds:
        texts = [w.text for w in cmd.words]
        for i, w in enumerate(cmd.words):
            if not is_script(texts, i) or "<<" not in w.text or not w.where or len(w.where) != len(w.text):
                continue
            scripts += 1
            if scripts > MAX_SCRIPTS or len(sub.configs) >= MAX_WRITTEN_CONFIGS:
                return
            try:
                script = parse_shell(w.text, tf.display)
            except ParserCrash:
                continue   # its commands are not read either (deploy.wrappers): nothing to say twice
            _written_configs(script, tf, sub, PlacedText(w.text, w.where, w.span), cmd.origin)


def load_loose_file(path: str, max_bytes: int = MAX_BYTES, within: str | None = None,
                    within_name: str | None = None) -> Submission:
    """A file outside any submission, linted on its own (no manifest); read only if its real
    path stays inside ``within`` (the linted tree, or the submission directory it lies in)."""
    display = display_path(path)
    sub = Submission(root=os.path.dirname(path), display=display, max_bytes=max_bytes, within=within,
                     within_name=within_name)
    tf = read_file(path, display, sub)
    if tf is not None:
        load_file(tf, os.path.basename(path), None, False, sub)
        if not sub.launches and sub.k8s_objects and not sub.k8s_not_modelled:
            # Kubernetes objects that run no container command (a Service, a ConfigMap, a Secret):
            # as any other YAML that is no engine config, only its syntax is checked, and what it
            # publishes (a token in a Secret's stringData) by the credential scan
            _scan_only(sub, [obj for _display, obj in sub.k8s_objects])
            # one the API server refuses (no apiVersion, or not a string) is still K8S004's
            from ..read import k8s

            sub.k8s_objects[:] = [(d, obj) for d, obj in sub.k8s_objects if not k8s.is_object(obj)]
            if not sub.k8s_objects:
                sub.unknown_yaml = _file_span(display)
        if not sub.launches and len(sub.configs) == 1 and isinstance(sub.configs[0].root, YMap):
            # keys that are (nearly) all flags of one engine's --config file (vllm serve --config
            # FILE, sglang serve --config FILE): that engine's config, checked against its flags
            keys = [k.value for k, _ in sub.configs[0].root.items]
            typing = config_engine(keys, knowledge())
            sub.configs[0].engine, sub.config_tied = typing.engine, typing.tied
            if typing.engine is None and not typing.tied and is_llm_api(keys, knowledge()) \
                    and not is_server_config(sub.configs[0].root):
                # a TensorRT-LLM LLM API YAML (--config / --extra_llm_api_options): read as the
                # worker that loads it, so its parallelism and speculative settings are checked too
                sub.configs[0].engine = "trtllm"
        if not sub.launches and sub.configs and sub.configs[0].engine is None \
                and not looks_like_engine_config(sub.configs[0].root):
            # Any YAML of a repository reaches a pre-commit hook (CI workflows, tool configs):
            # outside a submission only engine configs get more than a syntax check (and, as
            # every file read, the credential scan), and application tags (CloudFormation's
            # !Ref) are theirs to use.
            # A YAML that names no engine setting at all (a tool's config, a CI workflow, test
            # data) is no serving file: no COV001, as a directory run, which drops it, says nothing.
            engine_like = engine_like_keys(sub.configs[0].root)
            for f in sub.same_duplicates:   # no engine reads it: a duplicate key stays an error
                if f.level == "warning":
                    f.level, f.message = None, f.message.replace(SAME_VALUE, "YAML loaders keep only the last value")
            _scan_only(sub, [c.root for c in sub.configs if c.root is not None])
            sub.configs.clear()
            if engine_like:
                sub.unknown_yaml, sub.engine_like_yaml = _file_span(display), True
            sub.findings = [f for f in sub.findings if not f.message.startswith(TAG_MESSAGE)]
    return sub


def _scan_only(sub: Submission, trees: list[YNode]) -> None:
    """The files ``sub`` read, and their YAML ``trees``, left to the credential scan alone."""
    sub.scan_only += sub.texts
    sub.scan_only_trees += trees
    sub.texts.clear()


ENGINE_CONFIG_KEYS = {
    "tensor_parallel_size", "tensor-parallel-size", "tp-size", "moe_expert_parallel_size",
    "speculative_config", "kv_cache_config", "model-path", "context_servers", "generation_servers",
    "speculative-algorithm", "reasoning-parser", "tool-call-parser", "max_num_tokens", "max_batch_size",
}


def engine_like_keys(root: YNode | None) -> bool:
    """Whether a YAML mapping has a top-level key spelled as an SGLang or vLLM flag (with ``-`` or
    ``_``, rules/flags) or a TensorRT-LLM LLM API key (knowledge.llmapi), other than a plain word
    any YAML may hold (``name``, ``model``, ``port`` ...: keys without ``-`` or ``_``), or one
    slip from such a key (difflib ratio >= NEAR_KEY_RATIO)."""
    if not isinstance(root, YMap):
        return False
    other = other_engine_keys(knowledge())
    markers = llm_api_markers()
    keys = [key for k, _ in root.items
            if isinstance(k.value, str) and "_" in (key := k.value.replace("-", "_"))]
    if any(key in other or key in markers for key in keys):
        return True
    # one slip from such a key (tensor_parallel_sizee): an engine config with a typo, not a tool's
    # file; the first NEAR_KEYS keys only, so a large YAML costs no more than a small one
    import difflib

    by_length = _keys_by_length(other, markers)
    return any(difflib.get_close_matches(key, [c for n in range(len(key) - 4, len(key) + 5) for c in by_length.get(n, ())],
                                         n=1, cutoff=NEAR_KEY_RATIO) for key in keys[:NEAR_KEYS])


NEAR_KEYS = 20
NEAR_KEY_RATIO = 0.92   # a close key differs in length by d <= 0.087 x its length: at most 4 up to 46 characters
_BY_LENGTH: dict = {}


def _keys_by_length(other, markers) -> dict[int, list[str]]:
    """The engine keys of :func:`engine_like_keys` by length, built once per knowledge base."""
    memo_key = (id(other), id(markers))
    if memo_key not in _BY_LENGTH:
        _BY_LENGTH.clear()
        table: dict[int, list[str]] = {}
        for k in sorted(set(other) | set(markers)):
            table.setdefault(len(k), []).append(k)
        _BY_LENGTH[memo_key] = table
    return _BY_LENGTH[memo_key]


def is_server_config(root: YNode | None) -> bool:
    """Whether a YAML is a TensorRT-LLM disaggregated server config (context_servers /
    generation_servers), not an engine's own config."""
    return isinstance(root, YMap) and (root.get("context_servers") is not None or
                                       root.get("generation_servers") is not None)


def looks_like_engine_config(root: YNode | None) -> bool:
    """Whether a parsed YAML is a mapping with a top-level key only engine configs have: an SGLang /
    vLLM config key or a disaggregated server key (ENGINE_CONFIG_KEYS), or any key of TensorRT-LLM's
    LLM API but its plain words (knowledge.llmapi.llm_api_markers: from its LlmArgs schema)."""
    if not isinstance(root, YMap):
        return False
    markers = llm_api_markers()
    return any(isinstance(k.value, str) and (k.value in ENGINE_CONFIG_KEYS or k.value in markers)
               for k, _ in root.items)
