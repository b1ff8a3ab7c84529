"""Write the subset of Kubernetes and serving-CRD schemas cfglint validates workloads against
(schemas/k8s/*.json) from their public definitions. Facts only: field names, types, required
fields, enums and bounds; descriptions, defaults, patterns, CEL rules and status are dropped.

Integer fields keep the range of their OpenAPI ``format`` (int32, int64) as ``minimum`` /
``maximum`` (:data:`INT_FORMATS`): the API server refuses ``replicas: 10000000000``; bounds a kind's
admission webhook enforces beyond its CRD are :data:`WEBHOOK_MINIMUMS`.

Usage (from a checkout)::

    python -m cfglint.knowledge.build k8s-schemas core DEFINITIONS.json --source TEXT
    python -m cfglint.knowledge.build k8s-schemas crd CRD.yaml --version v1 --name FILE --source TEXT

``core``: DEFINITIONS is the Kubernetes API's definitions as JSON Schema: the ``$defs`` /
``definitions`` of a kubernetes-json-schema ``_definitions.json`` (a mechanical conversion of
kubernetes/kubernetes api/openapi-spec/swagger.json; kubernetes-validate on PyPI ships them per
release), or the ``components.schemas`` of an api/openapi-spec/v3 file. Written:
schemas/k8s/core.json with the definitions Deployment, StatefulSet, Job and Pod reach (each
kind's ``status`` is kept as an open object: a manifest may carry one, the server ignores it).
Every typed object is closed (``additionalProperties: false``): the API server with field
validation Strict (kubectl's default since 1.27) refuses unknown fields.

``crd``: CRD is a CustomResourceDefinition YAML (controller-gen output); the served version's
``openAPIV3Schema`` becomes schemas/k8s/FILE.json. Objects with ``properties`` are closed unless
they say ``x-kubernetes-preserve-unknown-fields`` (as the server's pruning and Strict field
validation treat them); ``null`` is accepted wherever a CRD field is optional (the server prunes
nulls of non-nullable fields); a required field with a ``default`` is not required (the server
defaults before it validates); ``x-kubernetes-int-or-string`` becomes integer-or-string. Objects
that are embedded Kubernetes types (a pod template, a container, resources, ...) become
references to core.json, so the two are validated alike: an object whose property names are a
subset of one core definition's and at least 80% of them (or, for a pod template, ``metadata`` +
``spec`` with ``containers``). ``--open PATH`` leaves one object open (``x-cfglint-open``) where
the CRD read is older than the one served, so newer fields are not reported as unknown.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import yaml

from ..bundled import data_dir

OUT = data_dir("schemas") / "k8s"
BASE = "https://cfglint.invalid/schemas/k8s/"
CORE = "io.k8s.api."
KINDS = {
    "io.k8s.api.apps.v1.Deployment": ("apps/v1", "Deployment"),
    "io.k8s.api.apps.v1.StatefulSet": ("apps/v1", "StatefulSet"),
    "io.k8s.api.batch.v1.Job": ("batch/v1", "Job"),
    "io.k8s.api.core.v1.Pod": ("v1", "Pod"),
}
# core definitions CRDs embed, matched by their property names (see the module docstring)
EMBEDDABLE = (
    "io.k8s.api.core.v1.PodSpec", "io.k8s.api.core.v1.Container", "io.k8s.api.core.v1.ResourceRequirements",
    "io.k8s.api.core.v1.Volume", "io.k8s.api.core.v1.VolumeMount", "io.k8s.api.core.v1.EnvVar",
    "io.k8s.api.core.v1.EnvFromSource", "io.k8s.api.core.v1.Affinity", "io.k8s.api.core.v1.Toleration",
    "io.k8s.api.core.v1.Probe", "io.k8s.api.core.v1.SecurityContext", "io.k8s.api.core.v1.PodSecurityContext",
    "io.k8s.api.core.v1.TopologySpreadConstraint", "io.k8s.api.core.v1.ContainerPort",
    "io.k8s.api.core.v1.LocalObjectReference", "io.k8s.api.core.v1.PersistentVolumeClaimSpec",
    "io.k8s.api.core.v1.Lifecycle", "io.k8s.api.core.v1.NodeSelector",
    "io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelector",
)
# Values of the API's enum string types (Go constants of the +enum types in k8s.io/api,
# kubernetes/kubernetes staging/src/k8s.io/api/{core,apps,batch}/v1/types.go at v1.37.0; the
# v3 OpenAPI lists the same values). The swagger conversion read for core.json has no enums.
ENUMS = {
    ("io.k8s.api.core.v1.Container", "imagePullPolicy"): ["Always", "Never", "IfNotPresent"],
    ("io.k8s.api.core.v1.Container", "terminationMessagePolicy"): ["File", "FallbackToLogsOnError"],
    ("io.k8s.api.core.v1.PodSpec", "restartPolicy"): ["Always", "OnFailure", "Never"],
    ("io.k8s.api.core.v1.PodSpec", "dnsPolicy"): ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"],
    ("io.k8s.api.core.v1.PodSpec", "preemptionPolicy"): ["PreemptLowerPriority", "Never"],
    ("io.k8s.api.core.v1.ContainerPort", "protocol"): ["TCP", "UDP", "SCTP"],
    ("io.k8s.api.core.v1.Toleration", "operator"): ["Exists", "Equal"],
    ("io.k8s.api.core.v1.Toleration", "effect"): ["NoSchedule", "PreferNoSchedule", "NoExecute"],
    ("io.k8s.api.core.v1.NodeSelectorRequirement", "operator"): ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"],
    ("io.k8s.apimachinery.pkg.apis.meta.v1.LabelSelectorRequirement", "operator"): ["In", "NotIn", "Exists",
                                                                                   "DoesNotExist"],
    ("io.k8s.api.core.v1.HostPathVolumeSource", "type"): ["", "DirectoryOrCreate", "Directory", "FileOrCreate",
                                                          "File", "Socket", "CharDevice", "BlockDevice"],
    ("io.k8s.api.apps.v1.DeploymentStrategy", "type"): ["Recreate", "RollingUpdate"],
    ("io.k8s.api.apps.v1.StatefulSetSpec", "podManagementPolicy"): ["OrderedReady", "Parallel"],
    ("io.k8s.api.apps.v1.StatefulSetUpdateStrategy", "type"): ["RollingUpdate", "OnDelete"],
    ("io.k8s.api.batch.v1.JobSpec", "completionMode"): ["NonIndexed", "Indexed"],
}
# the range of an integer field's OpenAPI format: the API server refuses a value beyond it (a built-in
# type's int32 field cannot hold it; for a custom resource kubernetes/kube-openapi
# pkg/validation/validate/validator.go @ d427ff9ee9ad, numberValidator: "int32 ... the validator verifies
# that the value fits within the range of the specified type"); kept as minimum / maximum, the
# tighter of these and the schema's own
INT_FORMATS = {"int32": (-(1 << 31), (1 << 31) - 1), "int64": (-(1 << 63), (1 << 63) - 1)}
# bounds a kind's admission webhook enforces that its CRD does not state: (apiVersion, kind) ->
# (dot-separated path in the schema, minimum). Source: kubernetes-sigs/lws
# pkg/webhooks/leaderworkerset_webhook.go @ 060ab4da17ee ("size must be equal or greater than 1")
WEBHOOK_MINIMUMS = {
    ("leaderworkerset.x-k8s.io/v1", "LeaderWorkerSet"): (("properties.spec.properties.leaderWorkerTemplate.properties.size", 1),),
}
KEEP = ("type", "required", "enum", "minimum", "maximum", "minItems", "maxItems", "minLength", "maxLength",
        "x-kubernetes-preserve-unknown-fields")


def _ref(name: str, file: str = "") -> dict:
    return {"$ref": f"{file}#/$defs/{name}"}


def _int_range(node: dict, out: dict) -> None:
    """``format: int32`` / ``int64`` of an integer field as its bounds (:data:`INT_FORMATS`)."""
    types = node.get("type")
    if node.get("format") not in INT_FORMATS or "integer" not in ([types] if isinstance(types, str) else types or []):
        return
    low, high = INT_FORMATS[node["format"]]
    out["minimum"] = max(out.get("minimum", low), low)
    out["maximum"] = min(out.get("maximum", high), high)


def _merge_types(out: dict) -> dict:
    """``oneOf``/``anyOf`` of bare types (Quantity, IntOrString) as one ``type`` list: the same
    values pass, and an error names the types instead of listing the failed branches."""
    for key in ("oneOf", "anyOf"):
        branches = out.get(key)
        if branches and all(isinstance(b, dict) and set(b) == {"type"} for b in branches):
            types: list = []
            for b in branches:
                for t in ([b["type"]] if isinstance(b["type"], str) else b["type"]):
                    if t not in types:
                        types.append(t)
            out.pop(key)
            out["type"] = [t for t in types if t != "null"] + (["null"] if "null" in types else [])
    return out


def _slim_core(node, defs_key: str):
    """A core definition without descriptions and formats, refs pointing into this file."""
    if isinstance(node, list):
        return [_slim_core(x, defs_key) for x in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _ref(node["$ref"].rsplit("/", 1)[-1])
    if "allOf" in node and len(node["allOf"]) == 1 and "$ref" in node["allOf"][0]:  # OpenAPI v3 style
        return _ref(node["allOf"][0]["$ref"].rsplit("/", 1)[-1])
    out = {}
    for k, v in node.items():
        if k in KEEP:
            out[k] = v
        elif k == "properties":
            out[k] = {p: _slim_core(s, defs_key) for p, s in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = _slim_core(v, defs_key)
        elif k == "additionalProperties":
            out[k] = v
        elif k in ("oneOf", "anyOf"):
            out[k] = _slim_core(v, defs_key)
        elif k == "x-kubernetes-int-or-string" and v:
            out["anyOf"] = [{"type": ["integer", "null"]}, {"type": ["string", "null"]}]
    _int_range(node, out)
    if "properties" in out and "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    return _merge_types(out)


def _refs(node, found: set) -> None:
    if isinstance(node, dict):
        r = node.get("$ref")
        if isinstance(r, str):
            found.add(r.rsplit("/", 1)[-1])
        for v in node.values():
            _refs(v, found)
    elif isinstance(node, list):
        for v in node:
            _refs(v, found)


def core(path: str, source: str) -> dict:
    raw = json.loads(Path(path).read_text(encoding="utf-8"))
    defs = raw.get("$defs") or raw.get("definitions") or raw.get("components", {}).get("schemas")
    roots = list(KINDS) + ["io.k8s.api.core.v1.PodTemplateSpec"] + list(EMBEDDABLE)
    out: dict[str, dict] = {}
    todo = list(roots)
    while todo:
        name = todo.pop()
        if name in out:
            continue
        slim = _slim_core(defs[name], "$defs")
        if name in KINDS:
            api, kind = KINDS[name]
            slim["properties"]["apiVersion"] = {"enum": [api]}
            slim["properties"]["kind"] = {"enum": [kind]}
            slim["properties"]["status"] = {"type": ["object", "null"]}
            slim.pop("required", None)
            slim["required"] = ["apiVersion", "kind"]
        for (owner, prop), values in ENUMS.items():
            if owner == name:
                slim["properties"][prop]["enum"] = values + [None]
        out[name] = slim
        found: set[str] = set()
        _refs(slim, found)
        todo.extend(sorted(found - set(out)))
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + "core.json",
            "x-source": source, "$defs": dict(sorted(out.items()))}


def _props(node) -> set:
    return set(node.get("properties") or {}) if isinstance(node, dict) else set()


def _embedded(node: dict, core_defs: dict) -> str | None:
    """The core definition an embedded CRD object is, or None."""
    props = _props(node)
    if props == {"metadata", "spec"} and "containers" in _props(node["properties"]["spec"]):
        return "io.k8s.api.core.v1.PodTemplateSpec"
    if len(props) < 3:
        return None
    best, overlap = None, 0
    required = set(node.get("required") or [])
    for name in EMBEDDABLE:
        q = _props(core_defs[name])
        if required != set(core_defs[name].get("required") or []):  # e.g. Dynamo's mainContainer: no name needed
            continue
        if props <= q and len(props) >= 0.8 * len(q) and len(props) > overlap:
            best, overlap = name, len(props)
    return best


def _with_null(t):
    if isinstance(t, str):
        return [t, "null"]
    return t


def _slim_crd(node, core_defs: dict, top: bool = False):
    if isinstance(node, list):
        return [_slim_crd(x, core_defs) for x in node]
    if not isinstance(node, dict):
        return node
    if not top and node.get("type") == "object":
        name = _embedded(node, core_defs)
        if name:
            return _ref(name, "core.json")
    out: dict = {}
    defaulted = {p for p, sub in (node.get("properties") or {}).items() if isinstance(sub, dict) and "default" in sub}
    for k, v in node.items():
        if k == "required":  # the server applies a CRD's defaults before it validates
            if [r for r in v if r not in defaulted]:
                out[k] = [r for r in v if r not in defaulted]
        elif k == "type":
            out[k] = _with_null(v)
        elif k in KEEP:
            out[k] = v
        elif k == "properties":
            out[k] = {p: _slim_crd(s, core_defs) for p, s in v.items()}
        elif k in ("items", "additionalProperties") and isinstance(v, dict):
            out[k] = _slim_crd(v, core_defs)
        elif k == "additionalProperties":
            out[k] = v
        elif k in ("oneOf", "anyOf", "allOf"):
            out[k] = [_slim_crd(x, core_defs) for x in v]
        elif k == "x-kubernetes-int-or-string" and v:
            out.pop("type", None)
            out["anyOf"] = [{"type": ["integer", "null"]}, {"type": ["string", "null"]}]
    _int_range(node, out)
    if out.get("anyOf") and all(isinstance(b, dict) and set(b) == {"type"} for b in out["anyOf"]):
        out.pop("type", None)
        _merge_types(out)
    if out.get("anyOf") and "type" in out and all("type" in a and set(_with_null(a["type"])) <= {"integer", "string", "null"}
                                                  for a in out["anyOf"]):
        out.pop("type")
    if "properties" in out and "additionalProperties" not in out and not out.get("x-kubernetes-preserve-unknown-fields"):
        out["additionalProperties"] = False
    if "enum" in out and None not in out["enum"]:
        out["enum"] = list(out["enum"]) + [None]
    return out


def _open(schema: dict, path: str) -> None:
    """Leave the object at ``path`` (dot-separated keys of the schema) open to unknown fields."""
    node = schema
    for part in path.split("."):
        node = node[part]
    node.pop("additionalProperties", None)
    node["x-cfglint-open"] = True


def crd(path: str, version: str, name: str, source: str, open_paths: tuple = ()) -> dict:
    docs = [d for d in yaml.safe_load_all(Path(path).read_text(encoding="utf-8")) if d]
    (doc,) = [d for d in docs if d.get("kind") == "CustomResourceDefinition"]
    group, kind = doc["spec"]["group"], doc["spec"]["names"]["kind"]
    (ver,) = [v for v in doc["spec"]["versions"] if v["name"] == version]
    schema = ver["schema"]["openAPIV3Schema"]
    core_defs = json.loads((OUT / "core.json").read_text(encoding="utf-8"))["$defs"]
    slim = _slim_crd(schema, core_defs, top=True)
    slim["properties"]["apiVersion"] = {"enum": [f"{group}/{version}"]}
    slim["properties"]["kind"] = {"enum": [kind]}
    slim["properties"]["metadata"] = _ref("io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta", "core.json")
    if "status" in slim["properties"]:
        slim["properties"]["status"] = {"type": ["object", "null"]}
    slim["required"] = sorted(set(slim.get("required") or []) | {"apiVersion", "kind"})
    slim["additionalProperties"] = False
    for p in open_paths:
        _open(slim, p)
    for p, minimum in WEBHOOK_MINIMUMS.get((f"{group}/{version}", kind), ()):
        node = slim
        for part in p.split("."):
            node = node[part]
        node["minimum"] = max(node.get("minimum", minimum), minimum)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + name + ".json",
            "x-source": source, "x-api-version": f"{group}/{version}", "x-kind": kind, **slim}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cfglint.knowledge.build k8s-schemas",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="mode", required=True)
    c = sub.add_parser("core")
    c.add_argument("definitions")
    c.add_argument("--source", required=True)
    r = sub.add_parser("crd")
    r.add_argument("crd")
    r.add_argument("--version", required=True)
    r.add_argument("--name", required=True)
    r.add_argument("--source", required=True)
    r.add_argument("--open", action="append", default=[], metavar="PATH",
                   help="keep the object at PATH (e.g. properties.spec) open: for a CRD read at a version older "
                        "than the served one, whose newer fields would otherwise be reported as unknown")
    args = ap.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)
    if args.mode == "core":
        data, name = core(args.definitions, args.source), "core"
    else:
        data, name = crd(args.crd, args.version, args.name, args.source, tuple(args.open)), args.name
    text = json.dumps(data, indent=0, ensure_ascii=False) + "\n"
    (OUT / f"{name}.json").write_text(text, encoding="utf-8")
    print(f"schemas/k8s/{name}.json: {len(text)} bytes", file=sys.stderr)
    return 0

