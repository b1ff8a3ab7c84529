"""Launchers: which leading words start which engine, orchestrator worker, frontend or router.

All of it is data in ``rules/engines.yaml``: ``engines.<name>.launchers`` (``sglang serve``,
``python3 -m sglang.launch_server``, ``vllm serve``, ``trtllm-serve`` ...), ``engines.dynamo``
``workers`` / ``frontend`` (``python3 -m dynamo.<x>``) and ``launchers`` (routers such as
``python3 -m sglang_router.launch_server``, commands that are no server, and the flags that
mark a command as an engine launch). A new launcher is a new data entry.

A command that carries engine flags (``--tp-size``, ``--model-path`` ...) but whose launcher
is not known, or ``python3 -m <engine package>.<module>`` of an unknown module, is
*unrecognised*: :func:`Launchers.unrecognised` names it so COV001 can say so.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..model import Located
from ..read.shell import Word

PYTHON = re.compile(r"python3?(\.\d+)?")


@dataclass(frozen=True, slots=True)
class Launch:
    """What a command starts: ``kind`` engine | frontend | router; ``launcher`` its text;
    ``consumed``: how many leading words name it; ``spec``: its data entry (extra keys such as
    ``flag_registries``, ``dp_workers_on_one_node``)."""

    kind: str
    engine: str | None
    orchestrator: str | None
    launcher: str
    consumed: int
    spec: dict


def registries(kind: str, engine: str | None, orchestrator: str | None, launcher: str,
               spec: dict | None = None) -> tuple[str, ...]:
    """Which flag registries (rules/flags/*.yaml, rules/releases/<engine>.yaml) a process's flags
    must be found in: the launcher entry's own ``flag_registries`` when it names them
    (``sglang_router.launch_server``: SGLang's and the router's), else by kind and engine."""
    named = (spec or {}).get("flag_registries")
    if isinstance(named, list) and named:
        return tuple(str(n) for n in named)
    if kind == "frontend":
        return ("dynamo.frontend",)
    if kind == "router":
        return ("trtllm.disaggregated",) if engine == "trtllm" else ()
    if orchestrator == "dynamo" and engine:
        return (f"dynamo.{engine}",) + ((engine,) if engine in ("sglang", "vllm") else ())
    return (engine,) if engine else ()


def _texts(words: list[Word], n: int = 4) -> list[str]:
    return [os.path.basename(words[0].text)] + [w.text for w in words[1:n]] if words else []


def _starts(texts: list[str], prefix: list[str]) -> bool:
    """``texts`` begin with ``prefix``; ``python3`` in a prefix matches python, python3, python3.12."""
    n = len(prefix)
    if texts[:n] == prefix:
        return True
    return bool(prefix) and prefix[0].startswith("python") and bool(texts) and \
        PYTHON.fullmatch(texts[0]) is not None and texts[1:n] == prefix[1:]


class Launchers:
    """The launcher table of the knowledge base (``kb.engines``)."""

    def __init__(self, engines_data: dict):
        self.engines = engines_data.get("engines", {}) or {}
        data = engines_data.get("launchers") or {}
        self.extra = [e for e in data.get("extra") or [] if isinstance(e, dict)]
        self.serving_packages = set(data.get("serving_packages") or ())
        self.not_servers = [list(p) for p in data.get("not_servers") or [] if isinstance(p, list)]
        self.engine_flags = set(data.get("engine_flags") or ())
        self.benchmarks = [list(p) for p in data.get("engine_benchmarks") or [] if isinstance(p, list)]
        self.graphs = [e for e in data.get("graph_launchers") or [] if isinstance(e, dict) and e.get("words")]
        self.images = [e for e in data.get("image_entrypoints") or [] if isinstance(e, dict) and e.get("image")]
        through = data.get("look_through") if isinstance(data.get("look_through"), dict) else {}
        self.through_words = int(through.get("words") or 0)
        self.through_patterns = [re.compile(p) for p in through.get("patterns") or [] if isinstance(p, str)]

    def look_through(self, words: list[Word]) -> tuple[int, Launch] | None:
        """``./run-with-env.sh python3 -m sglang.launch_server ...``: (words the wrapper script takes,
        the launch after it) when the first word is named like a script (``look_through.patterns``)
        and a known launcher starts within ``look_through.words`` words of it, else None."""
        if not words or not any(p.search(words[0].raw) for p in self.through_patterns):
            return None
        for k in range(1, min(self.through_words, len(words) - 1) + 1):
            launch = self.identify(words[k:])
            if launch is not None:
                return k, launch
        return None

    def from_image(self, image: str | None, words: list[Word]) -> Launch | None:
        """The launch a container image's own entrypoint makes when ``docker run IMAGE`` is
        followed by no command, only arguments (``vllm/vllm-openai --model X``), or None."""
        if not image or (words and not words[0].text.startswith("-") and "/" not in words[0].text):
            return None  # a command follows the image (bash, python3 -m ...): not the entrypoint
        repo = image.rsplit("@", 1)[0]
        repo = repo.rsplit(":", 1)[0] if ":" in repo.rsplit("/", 1)[-1] else repo
        for entry in self.images:
            if repo == entry["image"] or repo.endswith("/" + entry["image"]):
                engine = entry.get("engine")
                return Launch("engine", engine, None, f"{entry['image']} image entrypoint", 0,
                              dict(self.engines.get(engine or "", {}), **entry))
        return None

    def unknown_entrypoint(self, image: Located, words: list[Word]) -> Located | None:
        """For ``docker run IMAGE --flag ...`` (only arguments after the image, which its own
        entrypoint runs) whose image :meth:`from_image` does not know: the launch, named at the
        image, when it may be an engine's (the image is a shell variable, or the arguments carry
        engine flags, ``launchers.engine_flags``: a sidecar's ``--model`` alone is no engine's), else None."""
        if not words or not words[0].text.startswith("-"):
            return None
        text = str(image.value)
        flagged = any(w.text.partition("=")[0] in self.engine_flags for w in words)
        if "$" in text or flagged:
            return Located(f"{text} (the image's own entrypoint)", image.span)
        return None

    def identify(self, words: list[Word]) -> Launch | None:
        """The launch ``words`` start with, or None."""
        if not words:
            return None
        texts = _texts(words)
        for name, spec in self.engines.items():
            for launcher in spec.get("launchers", []) or []:
                if _starts(texts, launcher):
                    if name == "trtllm" and len(texts) > 1 and texts[1] in ("disaggregated", "disaggregated_mpi_worker"):
                        # the disaggregated server, and its MPI workers (serve.py disaggregated_mpi_worker:
                        # -c CONFIG, --log_level), both read the disaggregated config, not engine flags
                        return Launch("router", "trtllm", None, f"trtllm-serve {texts[1]}", 2, {})
                    return Launch("engine", name, None, " ".join(launcher), len(launcher), spec)
        for entry in self.extra:
            prefix = list(entry.get("words") or [])
            if prefix and _starts(texts, prefix):
                return Launch(entry.get("kind", "engine"), entry.get("engine"), entry.get("orchestrator"),
                              " ".join(prefix), len(prefix), entry)
        dyn = self.engines.get("dynamo", {})
        if texts and PYTHON.fullmatch(texts[0]) and len(texts) > 2 and texts[1] == "-m":
            module = texts[2]
            if module in (dyn.get("workers") or {}):
                return Launch("engine", dyn["workers"][module], "dynamo", f"python3 -m {module}", 3, dyn)
            if module == dyn.get("frontend"):
                return Launch("frontend", None, "dynamo", f"python3 -m {module}", 3, dyn)
        return None

    def graph(self, words: list[Word]) -> tuple[Located, dict] | None:
        """``dynamo serve graphs.agg:Frontend ...``: (the launcher and its graph, at its first word;
        its ``graph_launchers`` entry) for a launcher whose engine flags are in a config of its own."""
        if not words:
            return None
        texts = _texts(words)
        for entry in self.graphs:
            prefix = list(entry["words"])
            if _starts(texts, prefix):
                target = texts[len(prefix)] if len(texts) > len(prefix) and not texts[len(prefix)].startswith("-") else ""
                return Located(" ".join(prefix + ([target] if target else [])), words[0].span), entry
        return None

    def unrecognised(self, words: list[Word]) -> Located | None:
        """For a command :meth:`identify` does not know: its launcher text at its first word
        when it looks like an engine launch (engine flags, or ``python -m`` of an engine
        package's module that is no known tool), else None."""
        if not words:
            return None
        texts = _texts(words, len(words))
        bench = next((p for p in self.benchmarks if _starts(texts, p)), None)
        if bench is not None:   # the engine runs inside the benchmark: a launch cfglint does not read
            return Located(" ".join(bench), words[0].span)
        if any(_starts(texts, p) for p in self.not_servers):
            return None
        python_m = PYTHON.fullmatch(texts[0]) is not None and len(texts) > 2 and texts[1] == "-m"
        if python_m:
            text = f"python3 -m {texts[2]}"
        elif PYTHON.fullmatch(texts[0]) and len(texts) > 1 and not texts[1].startswith("-"):
            text = f"{texts[0]} {texts[1]}"
        else:
            text = texts[0]
        package = texts[2].split(".")[0] if python_m else None
        flagged = any(t.partition("=")[0] in self.engine_flags for t in texts[1:])
        if flagged or (package is not None and package in self.serving_packages):
            return Located(text, words[0].span)
        return None
