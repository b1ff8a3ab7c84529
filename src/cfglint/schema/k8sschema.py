"""K8S004: a Kubernetes workload object (one YAML document) against its API schema, offline,
every error at the key or value it is about.

Schemas are data under ``schemas/k8s/`` (written by ``python -m cfglint.knowledge.build k8s-schemas`` from the public
definitions; each file names its source in ``x-source``): ``core.json`` holds the Kubernetes
API's Deployment, StatefulSet, Pod and Job (apps/v1, v1, batch/v1) and every type they embed;
one file per serving CRD version (LeaderWorkerSet, DisaggregatedSet, RoleBasedGroup,
DynamoGraphDeployment, ModelServing, StormService, RayClusterFleet, LLMInferenceService,
LLMInferenceServiceConfig, ServingRuntime, ClusterServingRuntime, VLLMRuntime) whose pod
templates and containers refer to core.json. Typed objects are closed: an unknown field is an
error, as ``kubectl apply`` (field validation Strict, the default since Kubernetes 1.27) makes
it; objects the API leaves open (``x-kubernetes-preserve-unknown-fields``, label maps) stay open.

Nothing is read or imported until :func:`validate_object` meets an object it has a schema for:
jsonschema and the schema files load then, and each kind's validator is compiled once per
process. Errors are mapped to YAML spans by :func:`cfglint.schema.validation.schema_findings`.
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..knowledge import data_dir
from ..model import Finding, Span, quote
from ..read.yamlsrc import YMap, YNode, YScalar, to_python

RULE_ID = "K8S004"
CHECK = "Kubernetes object schema (K8S004)"
BASE = "https://cfglint.invalid/schemas/k8s/"   # the schema files' $id prefix; never fetched

# (apiVersion, kind) -> (file under schemas/k8s/, JSON pointer of the kind's schema in it)
SCHEMAS: dict[tuple[str, str], tuple[str, str]] = {
    ("apps/v1", "Deployment"): ("core.json", "/$defs/io.k8s.api.apps.v1.Deployment"),
    ("apps/v1", "StatefulSet"): ("core.json", "/$defs/io.k8s.api.apps.v1.StatefulSet"),
    ("batch/v1", "Job"): ("core.json", "/$defs/io.k8s.api.batch.v1.Job"),
    ("v1", "Pod"): ("core.json", "/$defs/io.k8s.api.core.v1.Pod"),
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): ("leaderworkerset.x-k8s.io_v1_leaderworkerset.json", ""),
    ("disaggregatedset.x-k8s.io/v1", "DisaggregatedSet"): ("disaggregatedset.x-k8s.io_v1_disaggregatedset.json", ""),
    ("workloads.x-k8s.io/v1alpha1", "RoleBasedGroup"): ("workloads.x-k8s.io_v1alpha1_rolebasedgroup.json", ""),
    ("workloads.x-k8s.io/v1alpha2", "RoleBasedGroup"): ("workloads.x-k8s.io_v1alpha2_rolebasedgroup.json", ""),
    ("nvidia.com/v1alpha1", "DynamoGraphDeployment"): ("nvidia.com_v1alpha1_dynamographdeployment.json", ""),
    ("workload.serving.volcano.sh/v1alpha1", "ModelServing"): ("workload.serving.volcano.sh_v1alpha1_modelserving.json", ""),
    ("orchestration.aibrix.ai/v1alpha1", "StormService"): ("orchestration.aibrix.ai_v1alpha1_stormservice.json", ""),
    ("orchestration.aibrix.ai/v1alpha1", "RayClusterFleet"): ("orchestration.aibrix.ai_v1alpha1_rayclusterfleet.json", ""),
    ("serving.kserve.io/v1alpha1", "LLMInferenceService"): ("serving.kserve.io_v1alpha1_llminferenceservice.json", ""),
    ("serving.kserve.io/v1alpha2", "LLMInferenceService"): ("serving.kserve.io_v1alpha2_llminferenceservice.json", ""),
    ("serving.kserve.io/v1alpha1", "LLMInferenceServiceConfig"):
        ("serving.kserve.io_v1alpha1_llminferenceserviceconfig.json", ""),
    ("serving.kserve.io/v1alpha2", "LLMInferenceServiceConfig"):
        ("serving.kserve.io_v1alpha2_llminferenceserviceconfig.json", ""),
    ("serving.kserve.io/v1alpha1", "ServingRuntime"): ("serving.kserve.io_v1alpha1_servingruntime.json", ""),
    ("serving.kserve.io/v1alpha1", "ClusterServingRuntime"): ("serving.kserve.io_v1alpha1_clusterservingruntime.json", ""),
    ("production-stack.vllm.ai/v1alpha1", "VLLMRuntime"): ("production-stack.vllm.ai_v1alpha1_vllmruntime.json", ""),
}

# Serving kinds cfglint reads (cfglint.read.k8s.kinds) but holds no schema file of: never "did you
# mean" another kind of their group; "no schema" (COV001) instead. Source: kserve/kserve
# config/crd/full/serving.kserve.io_inferenceservices.yaml.
WITHOUT_SCHEMA = {("serving.kserve.io/v1beta1", "InferenceService")}

# Workload API versions Kubernetes no longer serves: (apiVersion, kind) -> (removed in, use instead).
# Source: kubernetes.io/docs/reference/using-api/deprecation-guide/ ("v1.16": Deployment,
# StatefulSet, DaemonSet and ReplicaSet in extensions/v1beta1, apps/v1beta1 and apps/v1beta2).
REMOVED: dict[tuple[str, str], tuple[str, str]] = {
    ("extensions/v1beta1", "Deployment"): ("1.16", "apps/v1"),
    ("apps/v1beta1", "Deployment"): ("1.16", "apps/v1"),
    ("apps/v1beta2", "Deployment"): ("1.16", "apps/v1"),
    ("apps/v1beta1", "StatefulSet"): ("1.16", "apps/v1"),
    ("apps/v1beta2", "StatefulSet"): ("1.16", "apps/v1"),
}


@dataclass(frozen=True, slots=True)
class NotChecked:
    """Why an object was not validated, shaped for ``Context.not_checked(check, why, span)``
    (COV001 folds it into the unit's note): ``why`` reads "no schema for <apiVersion>/<kind>", or
    for one value of a validated object "value '${REPLICAS}' is a placeholder ..."."""

    check: str
    why: str
    span: Span | None

    def __str__(self) -> str:
        return f"not checked: {self.why}"


class ObjectFindings(list):
    """The K8S004 findings of one object (a ``list[Finding]``), with what was validated:
    ``schema`` the file under schemas/k8s/ (None when nothing was), ``not_checked`` a
    :class:`NotChecked` when the object could not be validated (no schema for its kind),
    ``partial`` one :class:`NotChecked` per value that is a deploy-time placeholder
    (``${REPLICAS}``, ``<port>``, ``{{ .Values.x }}``) where the schema wants another type or value."""

    def __init__(self, findings=(), schema: str | None = None, not_checked: NotChecked | None = None,
                 partial: list[NotChecked] | None = None):
        super().__init__(findings)
        self.schema = schema
        self.not_checked = not_checked
        self.partial = partial or []   # values of a validated object that could not be checked


def _scalar_text(node: YNode | None) -> str | None:
    return node.value if isinstance(node, YScalar) and isinstance(node.value, str) else None


def _kinds_of(api_version: str) -> list[str]:
    return sorted({k for (a, k) in SCHEMAS if a == api_version})


def _versions_of(kind: str) -> list[str]:
    return sorted({a for (a, k) in SCHEMAS if k == kind})


def validate_object(node: YNode | None, display: str, patch: bool = False) -> ObjectFindings:
    """K8S004 findings of one Kubernetes object: ``node`` is one YAML document's root as
    :func:`cfglint.read.yamlsrc.parse_yaml` returns it, ``display`` the file's display path (used for
    findings without a node of their own).

    Returns an :class:`ObjectFindings` (a list of :class:`~cfglint.model.Finding`, rule K8S004,
    each at the exact key or value). Its ``not_checked`` is set, and the list empty, when the
    document is not an object with ``apiVersion`` and ``kind`` or cfglint has no schema for a
    kind that holds containers ("no schema for <apiVersion>/<kind>"): the caller reports that as
    COV001, never as a pass. An object of another kind that holds no container (a Service, a
    ConfigMap, a PersistentVolume, a PodMonitor) starts nothing: it is neither validated nor a gap.
    A removed workload API version (``apps/v1beta2`` Deployment) and a kind its API group does
    not have are findings. ``patch``: the object is a kustomize patch (a fragment merged into
    another object), so a missing required field is not an error; unknown fields and wrong
    types still are. Never raises for bad input.
    """
    if not isinstance(node, YMap):
        return ObjectFindings(not_checked=NotChecked(CHECK, "the YAML document is not a Kubernetes object (not a mapping)",
                                                     node.span if node is not None else None))
    api_node, kind_node = node.get("apiVersion"), node.get("kind")
    api, kind = _scalar_text(api_node), _scalar_text(kind_node)
    if api is None and kind is None:
        return ObjectFindings(not_checked=NotChecked(CHECK, "the YAML document has no apiVersion and kind", node.span))
    if api is None or kind is None:
        missing, present = ("apiVersion", node.key("kind")) if api is None else ("kind", node.key("apiVersion"))
        where = present.span if present is not None else node.span
        hint = f"; {kind} is served as {' or '.join(_versions_of(kind))}" if api is None and kind and _versions_of(kind) else ""
        return ObjectFindings([Finding(RULE_ID, f"this Kubernetes object has no {missing} (or it is not a string): the API "
                                                f"server refuses it{hint}", where)])
    if (api, kind) in REMOVED:
        removed, use = REMOVED[(api, kind)]
        return ObjectFindings([Finding(RULE_ID, f"{api} {kind} was removed in Kubernetes {removed}: no cluster serves it; "
                                                f"use apiVersion: {use}", api_node.span)])
    if (api, kind) not in SCHEMAS:
        kinds = _kinds_of(api)
        close = difflib.get_close_matches(kind, kinds, n=1, cutoff=0.75) if kinds and (api, kind) not in WITHOUT_SCHEMA \
            else []
        if close:
            return ObjectFindings([Finding(RULE_ID, f"{api} has no kind {quote(kind)}; did you mean {quote(close[0])}?",
                                           kind_node.span)])
        if not _runs_containers(node):
            # a Service, ConfigMap, PersistentVolume, PodMonitor ...: not a serving object, nothing
            # it holds starts an engine; K8S004 is about workloads, so there is no gap to report
            return ObjectFindings()
        return ObjectFindings(not_checked=NotChecked(CHECK, f"no schema for {api}/{kind}", kind_node.span))
    file, _ = SCHEMAS[(api, kind)]
    from . import validation

    data = to_python(node)
    clean, remember = validation.known_valid(lambda: _memo_key(file), lambda: _fast_validator(api, kind), node, data)
    from .k8svalues import resource_findings

    values = resource_findings(node, kind)   # the API server's checks of resource quantities
    if clean:
        return ObjectFindings(sorted(values, key=Finding.sort_key), schema=file)
    try:
        compiled = _validator(api, kind)
    except (OSError, ValueError) as err:  # a schema file missing or broken in this installation
        return ObjectFindings(not_checked=NotChecked(CHECK, f"the schema for {api}/{kind} cannot be read ({err})",
                                                     kind_node.span))
    capped = _Capped(compiled)
    raw = validation.schema_findings(RULE_ID, capped, node, data, display, _hint)
    if not raw:
        remember()
    raw, partial = _placeholders(raw, node)
    if capped.stopped:
        partial.append(NotChecked(CHECK, f"only the first {MAX_ERRORS} schema errors of this {kind} are reported",
                                  kind_node.span))
    if patch:
        raw = [f for f in raw if not _REQUIRED.match(_WHERE.match(f.message).group("text") if _WHERE.match(f.message)
                                                      else f.message)]
    scalars = _scalars(node) if raw else {}
    worded = [_worded(f, kind, scalars.get(f.span)) for f in raw]
    at = {f.span for f in worded}
    return ObjectFindings(sorted(worded + [f for f in values if f.span not in at], key=Finding.sort_key), schema=file,
                          partial=partial)


def _runs_containers(root: YNode) -> bool:
    """Whether an object holds containers anywhere (a pod template, a runtime's ``containers``):
    a serving or workload object, whose schema matters to what runs."""
    from ..read.yamlsrc import nodes

    for n in nodes(root):
        if isinstance(n, YMap) and any(k.value in ("containers", "initContainers") for k, _v in n.items):
            return True
    return False


# a value filled in at deploy time: envsubst ${VAR} / $VAR, Helm or Jinja {{ ... }}, a <placeholder>
_PLACEHOLDER = re.compile(r"\$\{[^}]*\}|\$[A-Za-z_][A-Za-z0-9_]*|\{\{.*?\}\}|<[^<>\s][^<>]*>")
_VALUE_ERROR = re.compile(r": .* (is not of type|is not one of|is not an allowed value|is not one of the allowed values)")


def _scalars(root: YNode) -> dict[Span, YScalar]:
    """Every scalar of the object by its span (a finding's span is its node's)."""
    from ..read.yamlsrc import nodes

    return {n.span: n for n in nodes(root) if isinstance(n, YScalar)}


def _placeholders(found: list[Finding], root: YNode) -> tuple[list[Finding], list[NotChecked]]:
    """Type and value errors on a string holding a deploy-time placeholder are not errors of the
    manifest as written: each becomes a not-checked note instead."""
    if not found:
        return found, []
    scalars = _scalars(root)
    keep: list[Finding] = []
    partial: list[NotChecked] = []
    for f in found:
        target = scalars.get(f.span)
        if target is not None and isinstance(target.value, str) and _PLACEHOLDER.search(target.value) and _VALUE_ERROR.search(f.message):
            partial.append(NotChecked(CHECK, f"value {quote(target.value)} is a placeholder filled in at deploy "
                                             f"time; its type and value are not checked", f.span))
        else:
            keep.append(f)
    return keep, partial


MAX_ERRORS = 200   # schema errors read per object: a generated or hostile manifest can hold thousands


class _Capped:
    """A compiled validator whose ``iter_errors`` stops after :data:`MAX_ERRORS` errors
    (``stopped`` then tells that more may follow)."""

    def __init__(self, compiled):
        self.compiled = compiled
        self.stopped = False

    def iter_errors(self, instance):
        for n, err in enumerate(self.compiled.iter_errors(instance)):
            if n >= MAX_ERRORS:
                self.stopped = True
                return
            yield err


@lru_cache(maxsize=None)
def _memo_key(file: str) -> str | None:
    """Knowledge-cache key of the memo of objects that passed ``schemas/k8s/<file>``: the
    file's and core.json's content and the installed jsonschema (validation._passed_key)."""
    from ..knowledge import kbcache
    from .validation import _passed_key

    own, core = _passed_key(f"k8s/{file}"), _passed_key("k8s/core.json")
    return kbcache.key("k8s-passed", own, core) if own is not None and core is not None else None


@lru_cache(maxsize=None)
def _contents(file: str) -> Any:
    """The parsed schema file ``schemas/k8s/<file>`` (read once)."""
    with open(data_dir("schemas") / "k8s" / file, encoding="utf-8") as fh:
        return json.load(fh)


@lru_cache(maxsize=None)
def _resource(file: str):
    """The parsed schema file ``schemas/k8s/<file>`` as a referencing Resource (made once)."""
    from referencing import Resource
    from referencing.jsonschema import DRAFT202012

    return Resource.from_contents(_contents(file), default_specification=DRAFT202012)


def _retrieve(uri: str):
    from referencing.exceptions import NoSuchResource

    name = uri[len(BASE):] if uri.startswith(BASE) else ""
    if not re.fullmatch(r"[A-Za-z0-9._-]+\.json", name):
        raise NoSuchResource(ref=uri)
    return _resource(name)


def _entry(file: str, pointer: str) -> dict:
    """The schema both validators of a kind start from: a reference to its definition."""
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$ref": f"{BASE}{file}#{pointer}"}


@lru_cache(maxsize=None)
def _fast_validator(api: str, kind: str):
    """The jsonschema-rs validator of one kind (:func:`cfglint.schema.fastschema.compile_schema`, once
    per process; None when there is none or a schema file cannot be read)."""
    from .fastschema import compile_schema

    file, pointer = SCHEMAS[(api, kind)]
    names = sorted({file, "core.json"})
    try:
        if not all(map(_fast_supported, names)):
            return None
        documents = {f"{BASE}{name}": _contents(name) for name in names}
    except (OSError, ValueError):
        return None

    def document(uri: str) -> Any:   # what a $ref to another file names: only these two files
        if uri.split("#", 1)[0] not in documents:
            raise ValueError(f"no schema document {uri}")
        return documents[uri.split("#", 1)[0]]

    schema = _entry(file, pointer)
    return compile_schema(schema, documents=document)


@lru_cache(maxsize=None)
def _fast_supported(file: str) -> bool:
    """Whether ``schemas/k8s/<file>`` uses only keywords the fast check shares with jsonschema."""
    from .fastschema import supported

    return supported(_contents(file))


@lru_cache(maxsize=None)
def _validator(api: str, kind: str):
    """The compiled validator of one kind (once per process). Schema files load on demand
    through a registry: a Deployment never reads the CRD files."""
    import jsonschema  # here, not at the top: only a run that meets a workload pays for it
    from referencing import Registry

    file, pointer = SCHEMAS[(api, kind)]
    schema = _entry(file, pointer)
    registry = Registry(retrieve=_retrieve)
    return jsonschema.Draft202012Validator(schema, registry=registry)


_TYPE_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
               "object": "a mapping", "array": "a list", "null": "empty"}
_WHERE = re.compile(r"^(?P<where>.*?): (?P<text>.*)$", re.S)
_UNKNOWN = re.compile(r"^unknown field (?P<key>'.*?'|\".*?\"); (?P<hint>.*)$", re.S)
_NOT_TYPE = re.compile(r"^(?P<shown>.*) is not of type (?P<types>('[a-z]+'(, | or )?)+)(?P<rest>.*)$", re.S)
_NOT_ONE_OF = re.compile(r"^(?P<shown>.*) is not one of \[(?P<values>.*)\]$", re.S)
_REQUIRED = re.compile(r"^(?P<key>'.*?') is a required property$", re.S)
_BOUND = re.compile(r"^(?P<shown>-?[0-9.eE+]+) is (?P<side>greater|less) than the (maximum|minimum) of (?P<bound>-?[0-9]+)$")
# the bounds of the integer formats (cfglint.knowledge.build.k8s_schemas INT_FORMATS)
_INT_WIDTHS = {(1 << 31) - 1: "int32", -(1 << 31): "int32", (1 << 63) - 1: "int64", -(1 << 63): "int64"}


def _place(where: str, kind: str) -> str:
    """``spec/template/spec/containers/0`` of a Deployment -> "the Deployment's
    spec.template.spec.containers[0]"; the top level -> "a Deployment"."""
    if where in ("", "(top level)"):
        return f"a {kind}"
    dotted = ""
    for part in where.split("/"):
        dotted += f"[{part}]" if part.isdigit() else (f".{part}" if dotted else part)
    return f"the {kind}'s {dotted}"


def _worded(f: Finding, kind: str, target: YScalar | None = None) -> Finding:
    """A schema finding in plain words: what is wrong, where (as a kubectl path), the right value."""
    m = _WHERE.match(f.message)
    if not m:
        return f
    place, text = _place(m.group("where"), kind), m.group("text")
    u = _UNKNOWN.match(text)
    if u:
        f.message = f"{u.group('key')} is not a field of {place}; {u.group('hint')} (kubectl apply refuses unknown fields)"
        return f
    t = _NOT_TYPE.match(text)
    if t:
        types = [x for x in re.findall(r"'([a-z]+)'", t.group("types")) if x != "null"]
        want = " or ".join(_TYPE_NAMES.get(x, x) for x in types)
        shown = t.group("shown")
        advice = ""
        if "string" in types and shown[:1] not in ("'", '"', "[", "{") and shown != "null":
            written = target.text if target is not None and target.text else shown
            what = "true or false" if shown in ("true", "false") else "a number"
            advice = f"; YAML reads {written} as {what}: quote it, \"{written}\""
        elif {"integer", "number"} & set(types) and re.fullmatch(r"'-?[0-9]+(\.[0-9]+)?'", shown):
            advice = f"; write it without quotes: {shown[1:-1]}"
        f.message = f"{place}: {shown} must be {want}{t.group('rest')}{advice}"
        return f
    e = _NOT_ONE_OF.match(text)
    if e:
        values = [v for v in (x.strip() for x in e.group("values").split(", ")) if v != "None"]
        f.message = f"{place}: {e.group('shown')} is not an allowed value; allowed: {', '.join(values)}"
        return f
    b = _BOUND.match(text)
    if b:
        shown, bound = b.group("shown"), int(b.group("bound"))
        shown = shown if len(shown) <= 40 else shown[:20] + "..."
        width = _INT_WIDTHS.get(bound)
        if width:
            f.message = (f"{place}: {shown} exceeds the {width} {'maximum' if b.group('side') == 'greater' else 'minimum'} "
                         f"{bound} (the field is a {width[3:]}-bit integer): the API server refuses it")
        else:
            f.message = f"{place}: {shown} must be {'at most' if b.group('side') == 'greater' else 'at least'} {bound}"
        return f
    r = _REQUIRED.match(text)
    if r:
        f.message = f"{place}: {r.group('key')} is required here and missing"
        return f
    f.message = f"{place}: {text}"
    return f


def _hint(path: tuple, key: str) -> str | None:
    """Advice for an unknown key that belongs elsewhere: a pod-template field in a workload's
    spec, a container or pod field indented under another key (None: the default "did you
    mean" / "allowed" advice)."""
    placed = _MISPLACED.get(key)
    if placed and path and path[-1] == "spec" and len(path) <= 1:
        return f"{quote(key)} belongs in {placed}"
    for owner, what in (("io.k8s.api.core.v1.Container", "a container (an item of containers)"),
                        ("io.k8s.api.core.v1.PodSpec", "a pod spec (template.spec)")):
        if key in _core_fields(owner):
            return f"{quote(key)} is a field of {what}: is it indented under the wrong key?"
    return None


@lru_cache(maxsize=None)
def _core_fields(name: str) -> frozenset:
    """Property names of one definition of core.json."""
    try:
        return frozenset((_contents("core.json")["$defs"][name].get("properties") or {}))
    except (OSError, ValueError, KeyError):
        return frozenset()


# fields people put in a workload's spec that belong in its pod template's spec
_MISPLACED = {k: "spec.template.spec (the pod template)" for k in
              ("containers", "volumes", "nodeSelector", "tolerations", "affinity", "hostNetwork", "hostIPC",
               "initContainers", "imagePullSecrets", "serviceAccountName", "runtimeClassName")}


def known_kinds() -> list[tuple[str, str]]:
    """Every (apiVersion, kind) validated, sorted."""
    return sorted(SCHEMAS)


def source(file: str) -> Any:
    """The public source a schema file under schemas/k8s/ was written from (its ``x-source``)."""
    with open(data_dir("schemas") / "k8s" / file, encoding="utf-8") as fh:
        return json.load(fh).get("x-source")
