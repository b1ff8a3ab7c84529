"""KServe's serving resources (serving.kserve.io): LLMInferenceService and
LLMInferenceServiceConfig (v1alpha1 / v1alpha2) and ServingRuntime / ClusterServingRuntime
(v1alpha1).

- LLMInferenceService: the decode (or only) workload is ``spec`` itself: ``replicas`` instances
  of the ``template`` pod (a PodSpec) and, for a multi-node instance, ``worker`` pods; ``prefill``
  is a second workload of the same shape. ``parallelism`` (tensor, pipeline, data, dataLocal,
  expert) says how an instance is split: a multi-node instance is ``pipeline`` pods, or
  ``data / dataLocal`` pods for data parallelism. A ``main`` container without a ``command``
  runs the launch of KServe's well-known LLMInferenceServiceConfig presets
  (:func:`preset_command`).
- LLMInferenceServiceConfig: a preset of the same spec; its containers' commands are launches,
  its pods' GPUs are set by the LLMInferenceService that uses it.
- ServingRuntime / ClusterServingRuntime: ``spec.containers`` (the pod spec is ``spec``); the
  GPUs are the InferenceService's that selects the runtime.

Sources (field names as facts): kserve/kserve pkg/apis/serving/v1alpha2/llm_inference_service_types.go
@ aaac4e294dae2c7b1aa1886447793f3aa1c30912 (LLMInferenceServiceSpec: Model{URI, Name}, WorkloadSpec{Replicas,
Parallelism{Tensor, Pipeline, Data, DataLocal, DataRPCPort, Expert}, Template, Worker}, Prefill) and
pkg/apis/serving/v1alpha1/servingruntime_types.go (ServingRuntimeSpec: ServingRuntimePodSpec{Containers,
Volumes, NodeSelector ...}, WorkerSpec); the presets config/llmisvcconfig/config-llm-template.yaml and
config-llm-decode-worker-data-parallel.yaml @ aaac4e294dae (``vllm serve /mnt/models``,
``--tensor-parallel-size`` from parallelism.tensor, ``--data-parallel-size`` / ``-size-local`` /
``--data-parallel-address`` / ``--data-parallel-start-rank``, ``--enable-expert-parallel``, worker pods
``--headless``, then ``$VLLM_ADDITIONAL_ARGS`` and the container's args).
"""

from __future__ import annotations

from ....model import Located, Span, parse_int
from ...shell import Command, Word
from ...yamlsrc import YMap, YScalar, YSeq
from ..env import container_env
from ..model import Container, PodGroup
from ..nodes import located, map_at, scalar_value
from ..positions import scalar_positions, span_of

PRESET_VARIABLES = ("VLLM_ADDITIONAL_ARGS", "VLLM_API_SERVER_COUNT")
CONFIG_GPUS = "the LLMInferenceService that uses this LLMInferenceServiceConfig"
RUNTIME_GPUS = "the InferenceService that selects this serving runtime"


def _int(node: Located | None) -> int | None:
    return parse_int(node.value) if node is not None else None


def _instance_size(par: YMap | None, worker: YMap | None) -> Located | None:
    """Pods of one instance: 1 without ``worker``; with it, ``pipeline`` pods, else ``data /
    dataLocal`` pods (at the span of the value it comes from)."""
    if worker is None or par is None:
        return None
    pipe = located(par.get("pipeline"))
    if _int(pipe) and _int(pipe) > 1:   # type: ignore[operator]
        return pipe
    data, local = located(par.get("data")), located(par.get("dataLocal"))
    d, dl = _int(data), _int(local)
    if d and dl and d > dl and d % dl == 0:
        return Located(d // dl, local.span)   # type: ignore[union-attr]
    return None


def llm_inference_service(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                          notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """The pod templates of an LLMInferenceService or LLMInferenceServiceConfig: decode (or
    the only workload: ``spec``) and ``prefill``, each a leader ``template`` and, for a
    multi-node instance, ``worker`` pods."""
    out: list[PodGroup] = []
    prefill = map_at(spec, "prefill")
    model = map_at(spec, "model")
    config = kind == "LLMInferenceServiceConfig"
    for body, role in ((spec, "decode" if prefill is not None else None), (prefill, "prefill")):
        if body is None:
            continue
        par = map_at(body, "parallelism")
        tmpl, worker = map_at(body, "template"), map_at(body, "worker")
        size = _instance_size(par, worker)
        reps = located(body.get("replicas"))
        at = (spec.key("prefill") if body is prefill else obj.key("kind"))
        rloc = Located(role, at.span) if role is not None and at is not None else None
        for pod, part in ((tmpl, "leader" if size else None), (worker, "worker")):
            if pod is None or (part == "worker" and size is None):
                continue
            extra = {"model": model, "parallelism": par, "size": size, "part": part}
            out.append(PodGroup(kind, name, kspan, pod, reps, size, part, rloc,
                                operator=None if config else "kserve", extra=extra,
                                gpus_elsewhere=CONFIG_GPUS if config else None))
    return out


def serving_runtime(kind: str, name: str, kspan: Span, obj: YMap, spec: YMap,
                    notes: list[tuple[str, Span]] | None) -> list[PodGroup]:
    """A ServingRuntime / ClusterServingRuntime: ``spec`` is the pod spec of its containers
    (one pod per predictor replica, set by the InferenceService); a ``workerSpec`` (multi-node)
    is a note."""
    if spec.get("workerSpec") is not None and notes is not None:
        notes.append((f"{kind} workerSpec (multi-node runtime)", spec.key("workerSpec").span))  # type: ignore[union-attr]
    return [PodGroup(kind, name, kspan, spec, gpus_elsewhere=RUNTIME_GPUS)]


def _split(text: str) -> list[tuple[str, int, int, bool]]:
    """Shell words of ``text`` (the preset ``eval``s ``$VLLM_ADDITIONAL_ARGS``): (word without
    its quotes, start, end, quoted) by offset in ``text``."""
    out: list[tuple[str, int, int, bool]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i].isspace():
            i += 1
        if i >= n:
            break
        start, buf, quoted = i, [], False
        while i < n and not text[i].isspace():
            ch = text[i]
            if ch in "'\"":
                quoted = True
                end = text.find(ch, i + 1)
                end = n if end < 0 else end
                buf.append(text[i + 1:end])
                i = end + 1
            elif ch == "\\" and i + 1 < n:
                quoted = True
                buf.append(text[i + 1])
                i += 2
            else:
                buf.append(ch)
                i += 1
        out.append(("".join(buf), start, min(i, n), quoted))
    return out


def _model_word(model: YMap | None, fallback: Span) -> Word:
    """The model the preset serves (it runs ``vllm serve /mnt/models``, where the storage
    initializer put ``model.uri``): the Hugging Face id of an ``hf://`` URI, else ``model.name``."""
    uri, name = located(model.get("uri")) if model else None, located(model.get("name")) if model else None
    if uri is not None and isinstance(uri.value, str) and uri.value.startswith("hf://"):
        return Word(uri.value[len("hf://"):], uri.value, uri.span)
    if name is not None and isinstance(name.value, str):
        return Word(name.value, name.value, name.span)
    return Word("/mnt/models", "/mnt/models", fallback)


def preset_command(c: Container, lines: list[str], display: str, args: Command | None) -> Command | None:
    """The launch KServe's preset runs in an LLMInferenceService's ``main`` container that sets
    no ``command``: ``vllm serve MODEL`` with the parallelism flags the preset writes from
    ``parallelism`` (each at the span of its value), the words of ``VLLM_ADDITIONAL_ARGS`` (at
    their place in the env value) and the container's ``args`` (``args``: those as read, or
    None). None for another container."""
    g = c.group
    if g.operator != "kserve" or c.name != "main" or c.node.get("command") is not None or g.extra is None:
        return None
    name = c.node.get("name")
    at = name.span if isinstance(name, YScalar) else c.node.span
    words = [Word("vllm", "vllm", at), Word("serve", "serve", at), _model_word(g.extra["model"], at)]
    par: YMap | None = g.extra["parallelism"]

    def flag(text: str, value: Located | None = None, value_text: str | None = None) -> None:
        where = value.span if value is not None else at
        words.append(Word(text, text, where))
        if value_text is not None:
            words.append(Word(value_text, value_text, where))

    if par is not None:
        for key, text in (("tensor", "--tensor-parallel-size"), ("pipeline", "--pipeline-parallel-size")):
            v = located(par.get(key))
            if v is not None:
                flag(text, v, str(v.value))
        data, local = located(par.get("data")), located(par.get("dataLocal"))
        expert = located(par.get("expert"))
        if expert is not None and expert.value is True:
            flag("--enable-expert-parallel", expert)
        if data is not None:
            servers = env_value(c.node, "VLLM_API_SERVER_COUNT")
            if g.part != "worker":   # the decode-worker-data-parallel preset: --api-server-count ${VLLM_API_SERVER_COUNT:-8}
                flag("--api-server-count", servers, str(servers.value) if servers is not None else "8")
            flag("--data-parallel-size", data, str(data.value))
            dl = local if local is not None else None
            flag("--data-parallel-size-local", dl or data, str(dl.value) if dl is not None else "1")
            size: Located | None = g.extra["size"]
            if size is not None:
                flag("--data-parallel-address", size, "<leader-address>")
                n, per = _int(size), _int(local) or 1
                if g.part == "leader":
                    flag("--data-parallel-start-rank", size, "0")
                elif n == 2:
                    flag("--data-parallel-start-rank", size, str(per))
                if g.part == "worker":
                    flag("--headless", size)
    env = container_env(c.node, g, lines)
    extra = _additional_args(c.node, lines, display)
    words += extra
    if args is not None:
        words += args.words
    # the preset's own variables: it reads them into flags, vLLM never sees them as settings
    assignments = {k: Word(v if v is not None else f"$({k})", v if v is not None else f"$({k})", s, v is not None)
                   for k, (v, s, _w) in env.values.items() if k not in PRESET_VARIABLES}
    return Command(words, {}, assignments, at)


def env_value(container: YMap, name: str) -> Located | None:
    """The static value of the container's env variable ``name``, with its span, or None."""
    items = container.get("env")
    for item in items.items if isinstance(items, YSeq) else []:
        if isinstance(item, YMap) and scalar_value(item.get("name")) == name:
            return located(item.get("value"))
    return None


def _additional_args(container: YMap, lines: list[str], display: str) -> list[Word]:
    """The words of the container's ``VLLM_ADDITIONAL_ARGS`` env value, each at its place."""
    items = container.get("env")
    for item in items.items if isinstance(items, YSeq) else []:
        if not isinstance(item, YMap) or scalar_value(item.get("name")) != "VLLM_ADDITIONAL_ARGS":
            continue
        value = item.get("value")
        if not isinstance(value, YScalar) or not isinstance(value.value, str):
            return []
        where = scalar_positions(value, lines)
        where = where if where is not None and len(where) == len(value.value) else None
        out = []
        for text, a, b, quoted in _split(value.value):
            span = span_of(where, a, b, display, value.span) if where else value.span
            own = where[a:b] if where and not quoted and len(text) == b - a else None
            out.append(Word(text, value.value[a:b], span, True, own))
        return out
    return []
