"""Extract: launch commands, worker argument files and engine YAML of one submission become
one normalized :class:`Deployment` (its engine processes, each with a role and canonical
settings, every value with the span it came from).

Engine semantics follow ``rules/engines.yaml``: which flags and YAML keys carry TP / PP / DP /
EP / DCP / attention DP / multi-node ranks / speculative settings / MoE runner / parsers, and
whether the engine YAML or the command line wins. Wrappers (``docker run``, ``mpirun``,
``srun``, ``torchrun``, ``env``, ``bash -c`` ...) are stripped by :mod:`cfglint.deploy.wrappers`; which
words start which engine, router or frontend is :mod:`cfglint.deploy.launchers`. This module parses
the engine's arguments, merges engine configs and assigns roles.
"""

from __future__ import annotations

import difflib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ..knowledge import Knowledge
from ..load.submission import ConfigFile, is_server_config, role_from_name
from ..model import Located, Span, parse_int, record
from ..read.shell import Command, Overlay, Word
from ..read.yamlsrc import YMap, YNode, YScalar, walk_path
from .graphs import service_launch
from .launchers import Launch, Launchers, registries  # noqa: F401  (registries: re-exported)
from .release import Launched, engines_of, launched, pins
from .wrappers import Unwrapped, Wrappers, shell_string_commands

PARALLELISM_KEYS = {"tensor_parallel_size", "tensor-parallel-size", "tp-size", "tp_size", "tp"}

@record
class ParserRef:
    """A reasoning or tool-call parser name and the registry it must be found in."""

    registry: str      # sglang | vllm | trtllm | dynamo
    kind: str          # reasoning | tool_call
    name: Located
    via: str           # the flag, YAML key or environment variable that set it


@dataclass(slots=True)
class Arg:
    """One flag as the launch gives it: on the command line or as a --config YAML key."""

    name: str                       # normalized (vLLM underscores -> dashes; YAML key -> --key)
    written: str                    # as in the source
    span: Span
    value: Located | None
    origin: str                     # "cli", or the config file: its display path (a written one: its path)
    dynamic: bool = False           # the value is written but known only at run time (value None)


@record
class Process:
    """One launched engine worker (or the engine view of a published engine YAML)."""

    kind: str                       # engine | frontend | router
    engine: str | None              # sglang | vllm | trtllm
    orchestrator: str | None        # dynamo
    launcher: str                   # e.g. "python3 -m dynamo.trtllm"
    span: Span                      # where the process is started (or the YAML's first key)
    role: Located | None = None
    repeat: Located | None = None   # started this many times (literal for loop)
    mpi_ranks: Located | None = None
    visible_devices: Located | None = None  # number of devices in a static CUDA_VISIBLE_DEVICES
    device_list: Located | None = None      # that CUDA_VISIBLE_DEVICES value ("0,1,2,3")
    image: Located | None = None            # container image the process runs in (docker run)
    settings: dict[str, Located] = field(default_factory=dict)
    parsers: list[ParserRef] = field(default_factory=list)
    configs: list[ConfigFile] = field(default_factory=list)
    missing_configs: list[Located] = field(default_factory=list)  # referenced, not published
    synthetic: bool = False         # built from an engine YAML no published command names
    certain: bool = True            # False: started an unknown number of times
    unknown: set[str] = field(default_factory=set)     # settings given by a value not known statically
    # words that stand for arguments not known statically ("${ARGS[@]}" of an array assigned in a
    # branch, "$@" at top level, $(...)): the flags they add are not checked (COV001)
    unresolved_args: list[Located] = field(default_factory=list)
    unresolved_at: dict[str, Span] = field(default_factory=dict)  # where each of those values is written
    # settings given by a flag present on some runs only (a branch's assignment, a template {{ if }}):
    # in ``unknown`` too; COV001 says why
    conditional: set[str] = field(default_factory=set)
    # settings a config's key gives whose value the launch script puts in at run time (ConfigFile.unknown):
    # in ``unknown`` too; COV001 names the keys and the edit, per config
    edited: set[str] = field(default_factory=set)
    # setting -> (the flag the launch gives, the known flag it is close to): a flag no release of the
    # launcher has, one letter or two from a flag that sets a setting (--tensor-paralel-size); the
    # setting is unknown (in ``unknown``) and FLG001 reports it once, at that flag
    mistyped: dict[str, tuple[Arg, str]] = field(default_factory=dict)
    flag_names: set[str] = field(default_factory=set)  # every flag / config key the launch sets
    args: list[Arg] = field(default_factory=list)
    tables: tuple[str, ...] = ()    # flag registries that apply: sglang, vllm, trtllm, dynamo.frontend, ...
    # engine -> the release of it this process runs (deploy/release.py), one per engine of ``tables``
    releases: dict[str, Launched] = field(default_factory=dict)
    # what the wrappers around the launch say (src/cfglint/deploy/wrappers.py)
    wrappers: list[str] = field(default_factory=list)   # e.g. ["srun", "docker run"], outermost first
    launch_nodes: Located | None = None     # srun -N / torchrun --nnodes
    tasks_per_node: Located | None = None   # srun --ntasks-per-node / mpirun -N, -npernode / torchrun --nproc-per-node
    wrapper_gpus: Located | None = None     # docker --gpus / srun --gpus value as written
    hosts: Located | None = None            # mpirun -H / srun -w / ssh host as written
    # the container it runs in (docker run / podman run) and that container's shared memory: the
    # wrapper's first word, --ipc, --shm-size and a -v SRC:/dev/shm bind, as written
    container: Located | None = None
    container_ipc: Located | None = None
    container_shm: Located | None = None
    container_shm_mount: Located | None = None
    env_files: list[Located] = field(default_factory=list)  # docker --env-file: environment not published inline
    dp_workers_on_one_node: bool = False    # sglang_router.launch_server: its --dp-size workers share this node
    # the process's environment as the launch sets it (export, VAR=x cmd, docker run -e, mpirun -x,
    # env, NAME=value lines of an argument file); value None when only known at run time
    env: Mapping[str, Located] = field(default_factory=dict)
    # the Kubernetes container it runs in (cfglint.read.k8s.model.Container: pod template, replicas, GPUs)
    pod: Any = None


@record
class Deployment:
    processes: list[Process] = field(default_factory=list)
    instances: dict[str, Located] = field(default_factory=dict)  # role -> count from server config
    # commands that look like an engine launch (engine flags, python -m <engine package>.<x>) whose
    # launcher is not recognised: the launcher text at its first word (COV001 reports them)
    unrecognised: list[Located] = field(default_factory=list)
    # shell syntax errors inside ``bash -c`` strings (the first of each string); the load stage
    # reports those of the file itself, lint_unit these as IO001 warnings
    shell_errors: list[Span] = field(default_factory=list)
    # launches of a launcher that takes the engine's flags from a config of its own (launchers.graph_launchers)
    # whose config is not read (cfglint.deploy.graphs): (the launcher and its graph, its data entry, the
    # Kubernetes container it runs in or None, why it is not read)
    graphs: list[tuple[Located, dict, Any, str]] = field(default_factory=list)
    # a graph launcher's service config that does not parse (DYN_DEPLOYMENT_CONFIG): (message, span); IO001
    config_errors: list[tuple[str, Span]] = field(default_factory=list)

    def engine_processes(self) -> list[Process]:
        return [p for p in self.processes if p.kind == "engine"]


# ---------------------------------------------------------------------------------------
class _LocatedEnv(Mapping):
    """A process's environment as name -> Located(value or None when not static, span),
    converted on lookup: building a dict per process made many processes in a file with many
    exported variables quadratic."""

    __slots__ = ("words",)

    def __init__(self, words: Mapping[str, Word]):
        self.words = words

    def __getitem__(self, name: str) -> Located:
        w = self.words[name]
        return Located(w.text if w.static else None, w.span)

    def __iter__(self):
        return iter(self.words)

    def __len__(self) -> int:
        return len(self.words)

    def names_starting(self, prefixes: tuple[str, ...]) -> list[str]:
        """The names that start with one of ``prefixes`` (VLLM_, SGLANG_ ...), without listing
        the whole environment when the shell's export log can answer."""
        if hasattr(self.words, "names_starting"):
            return self.words.names_starting(prefixes)
        return [k for k in self.words if k.startswith(prefixes)]


def _flag_table(tables: list[dict]) -> dict[str, str]:
    """Flag name -> canonical setting, from engine tables (the first table that names a flag wins)."""
    out: dict[str, str] = {}
    for spec in tables:
        for setting, names in (spec.get("settings") or {}).items():
            for n in names:
                out.setdefault(n, setting)
    return out


_INLINE_VALUE = re.compile(r"--?[A-Za-z][\w.-]*=")


def _as_bool(text: str) -> bool | None:
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    return None


def _as_int(text: Any) -> int | None:
    return parse_int(text if isinstance(text, (int, str)) else str(text))


def _typed(value: Any) -> Any:
    """Flag text -> int / bool / str, as the engines' argument parsers would read it."""
    if isinstance(value, str):
        i = _as_int(value)
        if i is not None:
            return i
    return value


# how close an unknown flag must be to a setting's flag to be taken for it (difflib.SequenceMatcher
# ratio): --tensor-paralel-size / --tensor-parallel-size 0.98, --tp-szie / --tp-size 0.86
MISTYPED_RATIO = 0.85
MISTYPED_SEARCHES = 100  # distinct unknown flags per process compared with the setting flags (bounded cost)


class _Adapter:
    """Turns commands into processes, using the engine tables of the knowledge base."""

    def __init__(self, kb: Knowledge, configs: list[ConfigFile], manifest: dict,
                 pinned: dict[str, Located] | None = None):
        self.kb = kb
        self.pinned = pinned or {}
        self.engines = kb.engines.get("engines", {})
        self.wrappers = Wrappers(kb.engines.get("wrappers"))
        self.launchers = Launchers(kb.engines)
        self.unrecognised: list[Located] = []
        self.graphs: list[tuple[Located, dict, Any, str]] = []
        self.config_errors: list[tuple[str, Span]] = []
        self.shell_errors: list[Span] = []
        self.shell_strings = 64  # bash -c strings parsed per submission at most (each is a parser run)
        self.configs = configs
        self.manifest = manifest
        eng = manifest.get("engine") if isinstance(manifest.get("engine"), dict) else {}
        self.default_engine = eng.get("name") if isinstance(eng.get("name"), str) else None
        self.default_orchestrator = eng.get("orchestrator") if isinstance(eng.get("orchestrator"), str) else None
        self.aggregated = (manifest.get("serving") or {}).get("mode") == "aggregated" \
            if isinstance(manifest.get("serving"), dict) else False

    # -- arguments ---------------------------------------------------------------------
    def parse_args(self, words: list[Word], booleans: set[str]) -> tuple[list[tuple[Word, Word | None]], list[Word]]:
        flags: list[tuple[Word, Word | None]] = []
        positionals: list[Word] = []
        i = 0
        while i < len(words):
            w = words[i]
            t = w.text
            if t.startswith("-") and len(t) > 1 and not re.fullmatch(r"-\d+(\.\d+)?", t):
                if _INLINE_VALUE.match(t):  # --tp=4, and -tp=4 (argparse splits single-dash long options too)
                    name, value = t.split("=", 1)
                    s = w.span
                    eq = w.raw.find("=") if w.static and "=" in w.raw else len(name)  # "--tp=4": quote before
                    nspan = Span(s.path, s.line, s.col, s.line, s.col + eq)
                    vspan = Span(s.path, s.line, s.col + eq + 1, s.end_line, s.end_col)
                    flags.append((Word(name, name, nspan), Word(value, value, vspan, w.static)))
                    i += 1
                    continue
                nxt = words[i + 1] if i + 1 < len(words) else None
                takes_value = nxt is not None and t not in booleans and (
                    not nxt.text.startswith("-") or re.fullmatch(r"-\d+(\.\d+)?", nxt.text) is not None)
                if t in booleans and nxt is not None and _as_bool(nxt.text) is not None:
                    takes_value = True  # --flag true
                flags.append((w, nxt if takes_value else None))
                i += 2 if takes_value else 1
            else:
                positionals.append(w)
                i += 1
        return flags, positionals

    def registries(self, proc: Process) -> list:
        """The flag registries of ``proc``'s launcher at the releases it runs (across every
        release held where that is not known)."""
        out = []
        for name in proc.tables:
            launch = proc.releases.get(name.split(".", 1)[0])
            reg = self.kb.registry(name, launch.release if launch is not None else None)
            if reg is not None:
                out.append(reg)
        return out

    def booleans(self, proc: Process) -> set[str]:
        """Option strings that take no value, from the flag registries (:meth:`registries`)."""
        return set().union(*(reg.no_value_options for reg in self.registries(proc)))

    def find_config(self, ref: str, container: object = None, at: Span | None = None) -> ConfigFile | None:
        """The config a flag (written at ``at``) names: the exact path first (a heredoc the script
        writes there wins, the last one it writes before the flag when it writes several; one a
        Kubernetes container's script writes is seen by that ``container`` only), then a published
        file of the same name."""
        norm = os.path.normpath(ref)
        found = [cfg for cfg in self.configs
                 if cfg.path == norm and (cfg.written_in is None or cfg.written_in is container)]
        if len(found) > 1 and at is not None:
            # `cat > f <<EOF` again: the file holds what the last heredoc before the launch wrote
            before = [cfg for cfg in found if cfg.written_at is not None and cfg.written_at.path == at.path
                      and (cfg.written_at.line, cfg.written_at.col) < (at.line, at.col)]
            if before:
                return before[-1]
        if found:
            return found[0]
        base = os.path.basename(ref)
        for cfg in self.configs:
            if os.path.basename(cfg.path) == base and cfg.written_by is None:
                return cfg
        return None

    # -- processes ---------------------------------------------------------------------
    def processes(self, cmd: Command, file_role: str | None, outer: dict[str, Word] | None = None,
                  depth: int = 0) -> list[Process]:
        """The processes ``cmd`` starts: none, one, or those of a ``bash -c "..."`` string.
        Commands that look like an engine launch but whose launcher is unknown go to
        ``self.unrecognised``."""
        env = Overlay(cmd.assignments, cmd.exported, outer or {})  # no copy per command
        wrapped = self.wrappers.unwrap(list(cmd.words), env)
        if wrapped.shell_string is not None:
            if depth >= 3 or self.shell_strings <= 0:
                return []
            self.shell_strings -= 1
            out = []
            string = wrapped.shell_string
            inners = [c for choice in string.choices for c in shell_string_commands(choice, self.shell_errors)] \
                if string.choices else shell_string_commands(string, self.shell_errors)
            for inner in inners:
                if string.choices:
                    inner.certain = False   # one of the strings the branches set: runs on some runs only
                inner.origin = cmd.origin
                if inner.repeat is None:
                    inner.repeat = cmd.repeat
                for proc in self.processes(inner, file_role, dict(env), depth + 1):
                    proc.wrappers = wrapped.chain + proc.wrappers
                    if proc.hosts is None and wrapped.hosts is not None:
                        proc.hosts = wrapped.hosts   # ssh HOST "cmd": cmd runs on HOST
                    if proc.container is None and wrapped.container is not None:
                        # docker run --entrypoint bash IMAGE -c "...": the container of the script
                        proc.container, proc.container_ipc = wrapped.container, wrapped.ipc
                        proc.container_shm, proc.container_shm_mount = wrapped.shm_size, wrapped.shm_mounted
                    if proc.image is None and wrapped.image is not None:
                        proc.image = wrapped.image   # the release it names is the container's
                        proc.releases = {e: launched(self.kb, e, self.manifest, proc.image, self.pinned)
                                         for e in engines_of(proc.tables, proc.engine)}
                    out.append(proc)
            return out
        pod_image = getattr(cmd.origin, "image", None) if wrapped.image is None else None  # a Kubernetes container's
        # the image's entrypoint runs the container's args only when it sets no command
        entry_image = wrapped.image or (pod_image if depth == 0 and getattr(cmd.origin, "entrypoint", False) else None)
        if wrapped.entrypoint is not None:
            entry_image = None  # docker run --entrypoint X: X runs the words after the image, not the image's own
        launch = self.launchers.identify(wrapped.words) or \
            self.launchers.from_image(entry_image.value if entry_image else None, wrapped.words)
        if launch is None:
            through = self.launchers.look_through(wrapped.words)
            if through is not None:  # a wrapper script that runs its arguments
                k, launch = through
                wrapped.chain.append(os.path.basename(wrapped.words[0].text))
                wrapped.words = wrapped.words[k:]
        if pod_image is not None:
            wrapped.image = pod_image
        graph = self.launchers.graph(wrapped.words) if launch is None else None
        if graph is not None:
            return self.graph_process(cmd, file_role, wrapped, graph)
        if launch is None:
            loc = (self.launchers.unknown_entrypoint(entry_image, wrapped.words) if entry_image else None) or \
                self.launchers.unrecognised(wrapped.words) or _hidden_command(wrapped.words)
            if loc is not None:
                self.unrecognised.append(loc)
            return []
        proc = self.process(cmd, file_role, wrapped=wrapped, launch=launch)
        return [proc] if proc is not None else []

    def graph_process(self, cmd: Command, file_role: str | None, wrapped: Unwrapped,
                      graph: tuple[Located, dict]) -> list[Process]:
        """The engine a graph launcher's service runs (``dynamo serve graphs.disagg:VllmWorker``),
        its arguments built from the service config as the launcher builds them
        (:mod:`cfglint.deploy.graphs`); none, with why for COV001, when that config is not read."""
        loc, entry = graph
        read = service_launch(entry, wrapped.words, wrapped.env, self.find_config)
        self.config_errors.extend(read.errors)
        if read.launch is None:
            if read.why is not None:
                self.graphs.append((loc, entry, cmd.origin, read.why))
            return []
        svc = read.launch
        if read.besides is not None:
            self.graphs.append((loc, entry, cmd.origin, read.besides))
        engine = svc.spec.get("engine")
        spec = dict(svc.spec, implied_releases=svc.releases)
        launch = Launch("engine", str(engine) if engine else None, "dynamo", f"{loc.value} ({svc.name.value})", 0, spec)
        proc = self.process(cmd, file_role, wrapped=replace(wrapped, words=svc.words), launch=launch)
        if proc is None:
            return []
        proc.span = loc.span   # where the service is started, not its first argument
        if proc.role is None and isinstance(svc.spec.get("role"), str):
            proc.role = Located(svc.spec["role"], svc.name.span)
        return [proc]

    def process(self, cmd: Command, file_role: str | None, bare: bool = False,
                wrapped: Unwrapped | None = None, launch: Launch | None = None) -> Process | None:
        """A process for ``cmd``; ``bare`` means the command is an argument list with no
        program (worker argument files): engine and orchestrator come from the manifest.
        ``wrapped`` / ``launch``: ``cmd`` already unwrapped and identified (see :meth:`processes`)."""
        if bare:
            if not self.default_engine:
                return None
            env = Overlay(cmd.assignments, cmd.exported)
            wrapped = Unwrapped(list(cmd.words), env)
            launch = Launch("engine", self.default_engine, self.default_orchestrator,
                            f"{self.default_engine} worker arguments", 0, {})
        elif wrapped is None or launch is None:
            procs = self.processes(cmd, file_role)
            return procs[0] if procs else None
        env = wrapped.env
        words = wrapped.words
        kind, engine, orchestrator, launcher, consumed = (launch.kind, launch.engine, launch.orchestrator,
                                                          launch.launcher, launch.consumed)
        if any(w.text in ("--help", "-h", "--version") for w in words[consumed:]):
            return None  # prints and exits: not a server
        start_span = words[0].span if words and not bare else cmd.span
        proc = Process(kind=kind, engine=engine, orchestrator=orchestrator, launcher=launcher,
                       span=start_span, repeat=cmd.repeat, mpi_ranks=wrapped.ranks, certain=cmd.certain,
                       image=wrapped.image, wrappers=list(wrapped.chain), launch_nodes=wrapped.nodes,
                       tasks_per_node=wrapped.per_node, wrapper_gpus=wrapped.gpus, hosts=wrapped.hosts,
                       env_files=list(wrapped.env_files), container=wrapped.container,
                       container_ipc=wrapped.ipc, container_shm=wrapped.shm_size,
                       container_shm_mount=wrapped.shm_mounted,
                       dp_workers_on_one_node=bool(launch.spec.get("dp_workers_on_one_node")),
                       pod=cmd.origin)
        cvd = env.get("CUDA_VISIBLE_DEVICES")
        if cvd is not None and cvd.static and re.fullmatch(r"\d+(,\d+)*", cvd.text):
            proc.visible_devices = Located(len(cvd.text.split(",")), cvd.span)
            proc.device_list = Located(cvd.text, cvd.span)

        proc.tables = registries(kind, engine, orchestrator, launcher, launch.spec)
        implied = launch.spec.get("implied_releases") or {}   # a graph service's engine build (deploy.graphs)
        proc.releases = {e: launched(self.kb, e, self.manifest, proc.image, self.pinned, implied.get(e))
                         for e in engines_of(proc.tables, proc.engine)}
        tables = [] if kind == "router" and engine != "trtllm" else self._tables(engine, orchestrator)
        booleans = self.booleans(proc)
        for spec in tables:
            booleans.update(spec.get("boolean_flags") or [])
        flags, positionals = self.parse_args(words[consumed:], booleans)
        flag_to_setting = _flag_table(tables)
        config_flags = {f for spec in tables for f in spec.get("config_flags") or []}

        underscores = any(spec.get("underscore_flags") for spec in tables)
        for flag, value in flags:
            name = flag.text
            if underscores and name.startswith("--"):  # vLLM: only before the first '.' (JSON keys keep theirs)
                head, dot, rest = name[2:].partition(".")
                name = "--" + head.replace("_", "-") + dot + rest
            proc.flag_names.add(name)
            if flag.conditional or (value is not None and value.conditional):
                # present on some runs only: its name is checked (FLG001), its value and what it sets are not known
                proc.args.append(Arg(name, flag.text, flag.span, None, "cli", value is not None))
                setting = flag_to_setting.get(name)
                if setting is not None and setting not in proc.settings:
                    proc.unknown.add(setting)
                    proc.conditional.add(setting)
                    proc.unresolved_at.setdefault(setting, flag.span)
                continue
            proc.args.append(Arg(name, flag.text, flag.span,
                                 Located(value.text, value.span) if value is not None and value.static else None, "cli",
                                 value is not None and not value.static))
            if name in config_flags and value is not None:
                cfg = self.find_config(value.text, cmd.origin, flag.span)
                if cfg is not None:
                    cfg.used_by += 1
                if cfg is not None and cfg.root is not None:
                    proc.configs.append(cfg)
                else:  # not published, or published but unreadable: its settings are unknown
                    proc.missing_configs.append(Located(value.text, value.span))
                continue
            setting = flag_to_setting.get(name)
            if setting is None and "." in name and value is not None and value.static:
                self.merge_json_key(proc, name, value, flag_to_setting)
                continue
            if setting is None:
                continue
            if value is None:
                proc.settings[setting] = Located(True, flag.span)
            elif not value.static:
                proc.settings.pop(setting, None)
                proc.unknown.add(setting)
                proc.unresolved_at.setdefault(setting, value.span)
            else:
                b = _as_bool(value.text) if name in booleans else None
                proc.settings[setting] = Located(b if b is not None else _typed(value.text), value.span)
        self.mark_mistyped(proc, flag_to_setting)
        if engine == "trtllm" and positionals and positionals[0].static and positionals[0].text == "serve":
            # `trtllm-serve serve MODEL`: the group's serve subcommand written out, the same launch as
            # `trtllm-serve MODEL` (rules/flags/trtllm.yaml subcommands; tensorrt_llm/commands/serve.py)
            positionals = positionals[1:]
        model_positional = positionals and kind == "engine" and engine in ("vllm", "trtllm") \
            and "model" not in proc.settings
        if model_positional and positionals[0].static and not positionals[0].conditional:
            proc.settings["model"] = Located(positionals[0].text, positionals[0].span)
        elif model_positional:
            proc.unknown.add("model")
            proc.unresolved_at.setdefault("model", positionals[0].span)
        proc.unresolved_args = [Located(w.raw, w.span) for w in positionals[1 if model_positional else 0:]
                                if not w.static]

        self.apply_implied(proc)
        for cfg in proc.configs:
            self.apply_config(proc, cfg)
        self.collect_parsers(proc, env)
        self.assign_role(proc, file_role)
        proc.env = _LocatedEnv(env)
        return proc

    def mark_mistyped(self, proc: Process, flag_to_setting: dict[str, str]) -> None:
        """A flag no release of the launcher has (its registries across releases) that is close
        (difflib ratio >= MISTYPED_RATIO) to a flag of a setting the launch does not set otherwise:
        the setting is not known (``proc.unknown``, ``proc.mistyped``), not the engine's default.
        ``--tensor-paralel-size 8`` leaves TP unknown, so the checks that need it do not report
        the consequences of TP 1; FLG001 names the flag and what it leaves unknown."""
        if not proc.args or not flag_to_setting:
            return
        regs = [self.kb.registry(name, None) for name in proc.tables]
        if not regs or any(r is None for r in regs):
            return
        names, searched = sorted(flag_to_setting), {}
        for arg in proc.args:
            if not arg.name.startswith("--") or any(r.find(arg.name) for r in regs):
                continue
            if arg.name not in searched:
                if len(searched) >= MISTYPED_SEARCHES:
                    break
                searched[arg.name] = difflib.get_close_matches(arg.name, names, n=1, cutoff=MISTYPED_RATIO)
            close = searched[arg.name]
            if not close:
                continue
            setting = flag_to_setting[close[0]]
            if setting in proc.settings or setting in proc.unknown:
                continue   # set by another flag: this one is only unknown
            proc.unknown.add(setting)
            proc.unresolved_at[setting] = arg.span
            proc.mistyped[setting] = (arg, close[0])

    def apply_implied(self, proc: Process) -> None:
        """Settings a deprecated flag stands for (rules/flags/*.yaml ``sets``: Dynamo's
        ``--is-prefill-worker`` is ``--disaggregation-mode prefill``), unless set otherwise."""
        tables = [reg.implied for reg in self.registries(proc)]
        tables = [t for t in tables if t]
        if not tables:
            return
        for arg in proc.args:
            implied = next((t[arg.name] for t in tables if arg.name in t), None)
            for setting, value in (implied or {}).items():
                proc.settings.setdefault(setting, Located(value, arg.span))

    def _tables(self, engine: str | None, orchestrator: str | None) -> list[dict]:
        tables = []
        if orchestrator == "dynamo":
            tables.append(self.engines.get("dynamo", {}))
            if engine == "trtllm":
                return tables  # dynamo.trtllm has its own CLI; trtllm-serve's flags do not apply
        if engine:
            tables.append(self.engines.get(engine, {}))
        return tables

    @staticmethod
    def merge_json_key(proc: Process, name: str, value: Word, flag_to_setting: dict[str, str]) -> None:
        """vLLM's ``--speculative-config.num_speculative_tokens 3``: one key of a JSON flag,
        merged into that flag's JSON the way vLLM's FlexibleArgumentParser does."""
        head, _, path = name.partition(".")
        setting = flag_to_setting.get(head)
        if setting is None:
            return
        current = proc.settings.get(setting)
        try:
            merged = json.loads(current.value) if current is not None and isinstance(current.value, str) else {}
        except ValueError:
            merged = {}
        if not isinstance(merged, dict):
            return
        node = merged
        keys = path.split(".")
        for k in keys[:-1]:
            node = node.setdefault(k, {}) if isinstance(node.get(k, {}), dict) else {}
        node[keys[-1]] = _typed(value.text)
        # the span of the draft-length key when there is one, so findings point at that number
        span = value.span if keys[-1] == "num_speculative_tokens" or current is None else current.span
        proc.settings[setting] = Located(json.dumps(merged), span)

    def apply_config(self, proc: Process, cfg: ConfigFile) -> None:
        """Settings from an engine YAML: SGLang/vLLM keys are flag names (the command line
        wins); TensorRT-LLM LLM API keys override the command line."""
        root = cfg.root
        if not isinstance(root, YMap):
            return
        spec = self.engines.get(proc.engine or "", {})
        llm_api = spec.get("config_keys") == "llm_api" or proc.engine == "trtllm"
        for path, span, _why in cfg.unknown:   # a value the script puts in at run time
            if llm_api:
                settings = [st for st, p in (self.engines.get("trtllm", {}).get("llm_api_keys") or {}).items()
                            if tuple(p[:len(path)]) == path]
            else:
                flag = "--" + str(path[0]).replace("_", "-")
                settings = [st for st in [_flag_table([spec]).get(flag)] if st] if len(path) == 1 else []
            for setting in settings:
                if not llm_api and setting in proc.settings:
                    continue   # the command line wins over an SGLang / vLLM config
                proc.settings.pop(setting, None)
                proc.unknown.add(setting)
                proc.edited.add(setting)
                proc.unresolved_at.setdefault(setting, span)
        if llm_api:
            proc.flag_names.update(k.value for k, _ in root.items if isinstance(k.value, str))
            for setting, path in (self.engines.get("trtllm", {}).get("llm_api_keys") or {}).items():
                if setting in proc.edited:
                    continue
                node = walk_path(root, tuple(path))
                if isinstance(node, YScalar) and node.value is not None:
                    proc.settings[setting] = Located(node.value, node.span)
            return
        flag_to_setting = _flag_table([spec])
        # a YAML boolean of a flag that takes a value sets nothing (FLG002 says what the engine does)
        takes_none = self.booleans(proc) if proc.tables else None
        for key, node in root.items:
            if isinstance(key.value, str):
                proc.flag_names.add("--" + key.value.replace("_", "-"))
                value = Located(node.value, node.span) if isinstance(node, YScalar) else None
                # a config a script writes is named by its own path (its positions are the script's)
                proc.args.append(Arg("--" + key.value, key.text, key.span, value,
                                     cfg.path if cfg.written_by else cfg.display))
            if not isinstance(key.value, str) or not isinstance(node, YScalar):
                continue
            flag = "--" + key.value.replace("_", "-")
            setting = flag_to_setting.get(flag)
            if takes_none is not None and isinstance(node.value, bool) and flag not in takes_none:
                continue
            if setting and setting not in proc.settings and node.value is not None:
                proc.settings[setting] = Located(node.value, node.span)

    def collect_parsers(self, proc: Process, env: dict[str, Word]) -> None:
        s = proc.settings
        if proc.kind == "engine" and proc.engine:
            for kind in ("reasoning", "tool_call"):
                loc = s.get(f"{kind}_parser")
                if loc is not None and isinstance(loc.value, str):
                    proc.parsers.append(ParserRef(proc.engine, kind, loc, self._via(proc.engine, kind)))
        if proc.orchestrator == "dynamo":
            dyn = self.engines.get("dynamo", {})
            for kind in ("reasoning", "tool_call"):
                loc = s.get(f"dyn_{kind}_parser")
                if loc is not None and isinstance(loc.value, str):
                    proc.parsers.append(ParserRef("dynamo", kind, loc, (dyn.get("settings") or {}).get(f"dyn_{kind}_parser", ["?"])[0]))
                var = (dyn.get("env") or {}).get(f"dyn_{kind}_parser")
                word = env.get(var) if var else None
                if word is not None and word.static:
                    proc.parsers.append(ParserRef("dynamo", kind, Located(word.text, word.span), var))

    def _via(self, engine: str, kind: str) -> str:
        names = (self.engines.get(engine, {}).get("settings") or {}).get(f"{kind}_parser") or ["?"]
        return names[0]

    def assign_role(self, proc: Process, file_role: str | None) -> None:
        if proc.kind != "engine":
            return
        mode = proc.settings.get("disaggregation_mode")
        if mode is not None and isinstance(mode.value, str):
            v = mode.value.lower()
            if v in ("prefill", "decode"):
                proc.role = Located(v, mode.span)
                return
            if v in ("null", "prefill_and_decode", "aggregated", "agg"):
                proc.role = Located("server", mode.span)
                return
        if file_role:
            proc.role = Located(file_role, proc.span)
            return
        for cfg in proc.configs:
            role = cfg.role or role_from_name(cfg.path)
            if role:
                proc.role = Located(role, proc.span)
                return
        if self.aggregated:
            proc.role = Located("server", proc.span)


_WHOLE_EXPANSION = re.compile(r'^"?\$(\{[^{}]*\}|[A-Za-z_][A-Za-z0-9_]*|@|\*)"?$')


def _hidden_command(words: list[Word]) -> Located | None:
    """A command the shell evaluator could not resolve: its program is a whole variable or array
    not known statically (``$CMD``, ``"${cmd[@]}"``), or ``eval`` of such a string. Whatever it
    starts is unknown (COV001 says so); None for any other command."""
    if not words:
        return None
    first = words[0]
    if not first.static and _WHOLE_EXPANSION.match(first.raw):
        return Located(first.raw, first.span)
    if first.static and first.text == "eval" and len(words) > 1 and not all(w.static for w in words[1:]):
        return Located("eval " + " ".join(w.raw for w in words[1:]), first.span)
    return None


def _first_key_span(root: YNode | None, display: str) -> Span:
    if isinstance(root, YMap) and root.items:
        return root.items[0][0].span
    return Span(display, 1, 1, 1, 1)


def unflagged_roles(engines: dict, procs: list[Process]) -> None:
    """The role of a worker its launch gives none (rules/engines.yaml ``unflagged_worker_role``):
    a ``python3 -m dynamo.vllm`` with no mode flag is the decode side of a deployment that starts
    a prefill worker of the same backend, else an aggregated server. A worker whose role could be
    set by what is not known statically (its mode flag or environment variable given by a shell
    value, arguments not known statically) keeps no role, and so does every unflagged worker
    beside such a one (which side it is depends on that one): COV001 says so."""
    table = (engines.get("dynamo") or {}).get("unflagged_worker_role") or {}
    for table_name, facts in table.items():
        if not isinstance(facts, dict):
            continue
        mine = [p for p in procs if p.kind == "engine" and not p.synthetic and table_name in p.tables]
        env_names = set(facts.get("env") or ())
        other = set(facts.get("other_kinds") or ())

        def told(p: Process) -> bool:   # its role is set, or it is a worker of another kind
            return p.role is not None or "disaggregation_mode" in p.settings or any(a.name in other for a in p.args)

        def open_(p: Process) -> bool:   # its role may be set by a value not known statically
            return not told(p) and ("disaggregation_mode" in p.unknown or bool(p.unresolved_args)
                                    or any(n in env_names for n in p.env))

        if any(open_(p) for p in mine):
            continue
        prefill = any(p.role is not None and p.role.value == "prefill" for p in mine)
        role = facts.get("with_prefill") if prefill else facts.get("alone")
        flag_role = facts.get("flag_role") or {}
        for p in mine:
            if told(p):
                continue
            flag = next((a for a in p.args if a.name in flag_role), None)
            if flag is not None:
                p.role = Located(flag_role[flag.name], flag.span)
            elif isinstance(role, str):
                p.role = Located(role, p.span)


def server_config_instances(root: YNode | None) -> dict[str, Located]:
    """prefill / decode instance counts of a TensorRT-LLM disaggregated server config."""
    out: dict[str, Located] = {}
    if not isinstance(root, YMap):
        return out
    for key, role in (("context_servers", "prefill"), ("generation_servers", "decode")):
        node = walk_path(root, (key, "num_instances"))
        if isinstance(node, YScalar) and _as_int(node.value) is not None:
            out[role] = Located(_as_int(node.value), node.span)
    return out


def extract(kb: Knowledge, manifest: dict, launches: list[tuple[str, Any, str | None, bool]],
            configs: list[ConfigFile]) -> Deployment:
    """Build the deployment.

    ``launches``: (display path, parsed launch, role from the manifest, is-args-file) where a
    parsed launch is a :class:`~cfglint.read.shell.ShellScript` or, for argument files, a
    :class:`~cfglint.read.shell.Command`. ``configs``: the submission's engine YAML files.
    """
    commands = [c for _display, parsed, _role, is_args in launches if not is_args for c in parsed.commands]
    adapter = _Adapter(kb, configs, manifest if isinstance(manifest, dict) else {}, pins(commands, kb))
    dep = Deployment()
    for _display, parsed, role, is_args in launches:
        if is_args:
            proc = adapter.process(parsed, role, bare=True)
            if proc is not None:
                dep.processes.append(proc)
            continue
        for cmd in parsed.commands:
            dep.processes.extend(adapter.processes(cmd, role))
    unflagged_roles(adapter.engines, dep.processes)
    dep.unrecognised = list(adapter.unrecognised)
    dep.graphs = list(adapter.graphs)
    dep.config_errors = list(adapter.config_errors)
    dep.shell_errors = list(adapter.shell_errors)
    for cfg in configs:
        if is_server_config(cfg.root):
            for role, loc in server_config_instances(cfg.root).items():
                dep.instances.setdefault(role, loc)
            continue
        if cfg.used_by or cfg.written_by or not isinstance(cfg.root, YMap):
            continue
        if cfg.engine and not adapter.default_engine:
            # linted on its own, its keys the flags of one engine's --config file (load.submission:
            # knowledge.configkeys): read as that engine reads it, by a launch nobody published
            engine, orchestrator = cfg.engine, None
        elif not adapter.default_engine \
                or not any(isinstance(k.value, str) and k.value in PARALLELISM_KEYS for k, _ in cfg.root.items):
            continue  # only an engine YAML that states its parallelism stands for a worker
        else:
            engine, orchestrator = adapter.default_engine, adapter.default_orchestrator
        proc = Process(kind="engine", engine=engine, orchestrator=orchestrator,
                       launcher=f"engine config {cfg.display}", span=_first_key_span(cfg.root, cfg.display),
                       configs=[cfg], synthetic=True)
        if cfg.engine and not adapter.default_engine:
            proc.tables = registries("engine", engine, None, proc.launcher)
            proc.releases = {e: launched(kb, e, adapter.manifest, None, adapter.pinned)
                             for e in engines_of(proc.tables, engine)}
        adapter.apply_config(proc, cfg)
        # a file linted on its own: its name (gen_config.yaml) does not make it a disaggregated role
        loose = cfg.engine and not adapter.default_engine
        role = cfg.role or (None if loose else role_from_name(cfg.path)) or ("server" if adapter.aggregated else None)
        if role:
            proc.role = Located(role, proc.span)
        cfg.used_by += 1
        adapter.collect_parsers(proc, {})
        dep.processes.append(proc)
    return dep
