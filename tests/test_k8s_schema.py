"""K8S004: Kubernetes workload objects against their schemas (cfglint.schema.k8sschema).

The objects are written from the public deployment catalog's descriptions (its entries are
mirrored as examples/ submissions): a single-node SGLang Deployment of NVIDIA's NVFP4 DeepSeek
build at TP8 on one RTX 6000D node with /root/.cache as a hostPath; a LeaderWorkerSet with TP8
per node and PP2 across two nodes over RoCE; a DisaggregatedSet with prefill and decode roles,
2 prefill + 1 decode (xPyD). Each is valid; one change each gives K8S004 at the exact key or
value.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cfglint.knowledge import data_dir
from cfglint.lint import lint_paths
from cfglint.read.yamlsrc import parse_yaml
from cfglint.schema import k8sschema
from cfglint.schema.k8sschema import SCHEMAS, validate_object

from support import copy_submission, lint, only, position, replace_once, shared

DEPLOYMENT = """\
apiVersion: apps/v1
kind: Deployment
metadata:
  name: deepseek-v4-flash-nvfp4-sglang-tp8
  labels:
    app: deepseek-v4-flash
spec:
  replicas: 1
  selector:
    matchLabels:
      app: deepseek-v4-flash
  template:
    metadata:
      labels:
        app: deepseek-v4-flash
    spec:
      nodeSelector:
        nvidia.com/gpu.product: NVIDIA-RTX-6000D
      containers:
        - name: sglang
          image: lmsysorg/sglang:latest
          command: ["python3", "-m", "sglang.launch_server"]
          args:
            - --model-path
            - nvidia/DeepSeek-V4-Flash-NVFP4
            - --tp-size
            - "8"
            - --moe-runner-backend
            - marlin
            - --port
            - "30000"
          ports:
            - containerPort: 30000
          env:
            - name: NCCL_DEBUG
              value: "WARN"
          resources:
            limits:
              nvidia.com/gpu: 8
          volumeMounts:
            - name: cache
              mountPath: /root/.cache
            - name: shm
              mountPath: /dev/shm
      volumes:
        - name: cache
          hostPath:
            path: /root/.cache
            type: DirectoryOrCreate
        - name: shm
          emptyDir:
            medium: Memory
            sizeLimit: 64Gi
"""

LWS = """\
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata:
  name: glm-nvfp4-sglang-tp8-pp2
spec:
  replicas: 1
  startupPolicy: LeaderCreated
  leaderWorkerTemplate:
    size: 2
    restartPolicy: RecreateGroupOnPodRestart
    leaderTemplate:
      metadata:
        labels:
          role: leader
      spec:
        hostNetwork: true
        containers:
          - name: sglang-leader
            image: lmsysorg/sglang:latest
            command: ["/bin/bash", "-c"]
            args:
              - >-
                python3 -m sglang.launch_server --model-path nvidia/GLM-NVFP4
                --tp-size 8 --pp-size 2 --nnodes 2 --node-rank $(LWS_WORKER_INDEX)
                --dist-init-addr $(LWS_LEADER_ADDRESS):20000 --port 30000
            resources:
              limits:
                nvidia.com/gpu: 8
                rdma/rdma_shared_device_a: 1
            securityContext:
              capabilities:
                add: ["IPC_LOCK"]
    workerTemplate:
      spec:
        hostNetwork: true
        containers:
          - name: sglang-worker
            image: lmsysorg/sglang:latest
            command: ["/bin/bash", "-c"]
            args:
              - >-
                python3 -m sglang.launch_server --model-path nvidia/GLM-NVFP4
                --tp-size 8 --pp-size 2 --nnodes 2 --node-rank $(LWS_WORKER_INDEX)
                --dist-init-addr $(LWS_LEADER_ADDRESS):20000
            resources:
              limits:
                nvidia.com/gpu: 8
                rdma/rdma_shared_device_a: 1
"""

DISAGG = """\
apiVersion: disaggregatedset.x-k8s.io/v1
kind: DisaggregatedSet
metadata:
  name: glm-nvfp4-sglang-2p1d
spec:
  roles:
    - name: prefill
      spec:
        replicas: 2
        leaderWorkerTemplate:
          size: 2
          workerTemplate:
            spec:
              containers:
                - name: prefill
                  image: lmsysorg/sglang:latest
                  args: ["--disaggregation-mode", "prefill", "--tp-size", "8", "--pp-size", "2", "--ep-size", "8"]
                  resources:
                    limits:
                      nvidia.com/gpu: 8
    - name: decode
      spec:
        replicas: 1
        leaderWorkerTemplate:
          size: 2
          workerTemplate:
            spec:
              containers:
                - name: decode
                  image: lmsysorg/sglang:latest
                  args: ["--disaggregation-mode", "decode", "--tp-size", "8", "--pp-size", "2", "--ep-size", "8"]
                  resources:
                    limits:
                      nvidia.com/gpu: 8
"""


def _check(text: str):
    return validate_object(parse_yaml(text, "deploy.yaml"), "deploy.yaml")


def _one(text: str, old: str, new: str):
    assert text.count(old) == 1, old
    changed = text.replace(old, new)
    found = _check(changed)
    assert len(found) == 1, [f.message for f in found]
    return changed, found[0]


@pytest.mark.parametrize("text", [DEPLOYMENT, LWS, DISAGG], ids=["deployment", "lws", "disaggregatedset"])
def test_catalog_shaped_objects_are_valid(text):
    result = _check(text)
    assert list(result) == [] and result.not_checked is None and result.schema


def test_misspelled_field_in_a_deployment_spec():
    text, f = _one(DEPLOYMENT, "  replicas: 1", "  replica: 1")
    assert f.rule_id == "K8S004"
    assert (f.span.line, f.span.col) == position(text, "replica:")
    assert (f.span.end_line, f.span.end_col) == (f.span.line, f.span.col + len("replica"))
    assert "'replica' is not a field of the Deployment's spec" in f.message and "did you mean 'replicas'" in f.message


def test_env_value_read_as_a_number_must_be_quoted():
    text, f = _one(DEPLOYMENT, 'value: "WARN"', "value: 1")
    line, col = position(text, "value: 1")
    assert (f.span.line, f.span.col) == (line, col + len("value: "))
    assert "env[0].value" in f.message and "must be a string" in f.message and "quote it" in f.message
    # a boolean in YAML's words (true), not Python's (True)
    _, f = _one(DEPLOYMENT, 'value: "WARN"', "value: yes")
    assert f.message.endswith("env[0].value: true must be a string; YAML reads yes as true or false: quote it, \"yes\""), \
        f.message


def test_quoted_port_must_be_an_integer():
    text, f = _one(DEPLOYMENT, "containerPort: 30000", 'containerPort: "30000"')
    line, col = position(text, 'containerPort: "30000"')
    assert (f.span.line, f.span.col) == (line, col + len("containerPort: "))
    assert "containerPort" in f.message and "must be an integer" in f.message and "30000" in f.message


def test_volume_without_its_required_name():
    text, f = _one(DEPLOYMENT, "        - name: cache\n          hostPath:", "        - hostPath:")
    assert (f.span.line, f.span.col) == position(text, "hostPath:\n            path")
    assert "volumes[0]" in f.message and "'name' is required" in f.message


def test_pod_template_of_a_leaderworkerset_is_a_kubernetes_pod_template():
    text, f = _one(LWS, "            securityContext:", "            securityContexts:")
    assert (f.span.line, f.span.col) == position(text, "securityContexts:")
    assert "'securityContexts' is not a field of the LeaderWorkerSet's " \
           "spec.leaderWorkerTemplate.leaderTemplate.spec.containers[0]" in f.message
    assert "did you mean 'securityContext'" in f.message


def test_leaderworkerset_size_must_be_an_integer():
    text, f = _one(LWS, "    size: 2", "    size: two")
    assert (f.span.line, f.span.col) == position(text, "two")
    assert "leaderWorkerTemplate.size" in f.message and "must be an integer" in f.message


def test_leaderworkerset_enum_value():
    text, f = _one(LWS, "startupPolicy: LeaderCreated", "startupPolicy: LeaderCreate")
    assert (f.span.line, f.span.col) == position(text, "LeaderCreate\n")
    assert "startupPolicy" in f.message and "did you mean 'LeaderCreated'" in f.message


def test_leaderworkerset_without_its_worker_template():
    start = LWS.index("    workerTemplate:")
    text = LWS[:start]
    found = _check(text)
    assert [f.message for f in found] == ["the LeaderWorkerSet's spec.leaderWorkerTemplate: 'workerTemplate' is "
                                          "required here and missing"]
    assert (found[0].span.line, found[0].span.col) == position(text, "leaderWorkerTemplate:")


def test_disaggregatedset_role_replicas_misplaced():
    # replicas belongs in the role's spec: one level up it is not a field of the role
    text, f = _one(DISAGG, "    - name: decode\n      spec:\n        replicas: 1\n",
                   "    - name: decode\n      replicas: 1\n      spec:\n")
    assert (f.span.line, f.span.col) == position(text, "replicas: 1")
    assert "'replicas' is not a field of the DisaggregatedSet's spec.roles[1]" in f.message


def test_disaggregatedset_role_without_name():
    text, f = _one(DISAGG, "    - name: decode\n      spec:", "    - spec:")
    assert (f.span.line, f.span.col) == position(text, "spec:\n        replicas: 1")
    assert "spec.roles[1]: 'name' is required" in f.message


def test_unknown_kind_is_not_checked_and_says_so():
    # an object of an unknown kind that runs containers: not checked, and said so
    result = _check("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: x\n"
                    "spec:\n  template:\n    spec:\n      containers: [{name: a, image: b}]\n")
    assert list(result) == [] and result.schema is None
    nc = result.not_checked
    assert nc.why == "no schema for example.com/v1/Widget" and str(nc) == "not checked: no schema for example.com/v1/Widget"
    assert (nc.span.line, nc.span.col) == (2, 7)
    # a ConfigMap (a Service, a PersistentVolume ...) starts nothing: no schema and no gap (issue 23)
    plain = _check("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata: {a: b}\n")
    assert list(plain) == [] and plain.schema is None and plain.not_checked is None
    newer = _check(LWS.replace("leaderworkerset.x-k8s.io/v1", "leaderworkerset.x-k8s.io/v2"))
    assert list(newer) == [] and newer.not_checked.why == "no schema for leaderworkerset.x-k8s.io/v2/LeaderWorkerSet"


def test_not_an_object_is_not_checked():
    assert _check("- a\n- b\n").not_checked is not None
    assert _check("model: x\n").not_checked.why == "the YAML document has no apiVersion and kind"


def test_removed_api_version_and_misspelled_kind():
    text = DEPLOYMENT.replace("apiVersion: apps/v1", "apiVersion: apps/v1beta2")
    (f,) = _check(text)
    assert (f.span.line, f.span.col) == (1, 13)
    assert "removed in Kubernetes 1.16" in f.message and "apps/v1" in f.message
    (g,) = _check(DEPLOYMENT.replace("kind: Deployment", "kind: Deploymnet"))
    assert (g.span.line, g.span.col) == (2, 7) and "did you mean 'Deployment'" in g.message


def test_containers_put_in_the_deployment_spec():
    text = DEPLOYMENT.replace("  replicas: 1\n", "  replicas: 1\n  containers: []\n")
    (f,) = _check(text)
    assert (f.span.line, f.span.col) == position(text, "containers: []")
    assert "belongs in spec.template.spec" in f.message


def test_hostile_input_gives_findings_not_tracebacks():
    for text in ("apiVersion: apps/v1\nkind: Deployment\nspec: 5\n",
                 "apiVersion: apps/v1\nkind: Deployment\nspec:\n  template:\n    spec:\n      containers: {a: 1}\n",
                 "apiVersion: [apps/v1]\nkind: Deployment\n",
                 "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  labels:\n    gpu: true\n"):
        for f in _check(text):
            assert f.rule_id == "K8S004" and f.span.line >= 1


def test_every_kind_the_issue_names_has_a_schema_that_compiles_and_cites_its_source():
    names = {kind for _, kind in SCHEMAS}
    assert names >= {"Deployment", "StatefulSet", "Pod", "Job", "LeaderWorkerSet", "DisaggregatedSet",
                     "RoleBasedGroup", "DynamoGraphDeployment", "ModelServing", "StormService",
                     "LLMInferenceService", "VLLMRuntime"}
    files = {p.name for p in (data_dir("schemas") / "k8s").glob("*.json")}
    assert files == {f for f, _ in SCHEMAS.values()}
    for (api, kind), (file, _) in SCHEMAS.items():
        data = json.loads((data_dir("schemas") / "k8s" / file).read_text(encoding="utf-8"))
        src = data.get("x-source", "")
        # a public repository path at a version: owner/repo path ... at <tag or commit>
        assert " at " in src and "/" in src.split()[0] and ".yaml" in src or "openapi-spec" in src, (file, src)
        if file != "core.json":
            assert (data["x-api-version"], data["x-kind"]) == (api, kind)
        import jsonschema

        jsonschema.Draft202012Validator.check_schema(data)   # well-formed JSON Schema
        minimal = {"apiVersion": api, "kind": kind}
        list(k8sschema._validator(api, kind).iter_errors(minimal))  # every reference resolves


def test_schema_data_is_small():
    # 489 KB (integer fields with their int32 / int64 bounds) with KServe's LLMInferenceServiceConfig
    # (two versions, 77-79 KB each: the Gateway API
    # route and scheduler it embeds) and the runtimes and RayClusterFleet; each file loads only when
    # an object of its kind is met, and kubernetes-validate, the alternative, installs 72 MB
    total = sum(p.stat().st_size for p in (data_dir("schemas") / "k8s").glob("*.json"))
    assert total < 500_000, total


def test_import_does_not_load_jsonschema():
    code = ("import sys, cfglint.schema.k8sschema, cfglint.checks.k8s_schema; "
            "print('jsonschema' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_k8s004_through_the_linter_on_a_published_submission(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    replace_once(d / "submission.yaml", "  - run.sh\n", "  - run.sh\n  configs:\n  - deploy.yaml\n")
    (d / "deploy.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    assert only(lint(d), "K8S004") == []
    line = replace_once(d / "deploy.yaml", "          volumeMounts:", "          volumeMount:")
    found = only(lint(d), "K8S004")
    assert [(f[1], f[2], f[3]) for f in found] == [("deploy.yaml", line, 11)]
    assert "did you mean 'volumeMounts'" in found[0][4]


def test_unknown_kind_through_the_linter_is_a_coverage_note(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    replace_once(d / "submission.yaml", "  - run.sh\n", "  - run.sh\n  configs:\n  - deploy.yaml\n")
    (d / "deploy.yaml").write_text(DEPLOYMENT.replace("apiVersion: apps/v1\nkind: Deployment",
                                                      "apiVersion: apps/v1\nkind: DaemonSet"), encoding="utf-8")
    findings = lint(d, coverage=True)
    assert only(findings, "K8S004") == []
    (note,) = only(findings, "COV001")
    assert "no schema for apps/v1/DaemonSet" in note[4]


def test_schema_sources_path(tmp_path):
    # the rule's documentation names the sources it was written from
    from cfglint.checks import all_rules

    r = all_rules()["K8S004"]
    assert r.level == "error" and r.name == "invalid-workload"
    assert any("kubernetes-sigs/lws" in s for s in r.sources)
    assert Path(data_dir("schemas") / "k8s" / "core.json").is_file()


def test_a_clean_object_seen_before_does_not_import_jsonschema(tmp_path):
    # a pre-commit run over an unchanged manifest: the second process finds the object in the
    # memo of clean objects and imports no validator; a changed object is validated again
    (tmp_path / "d.yaml").write_text(DEPLOYMENT, encoding="utf-8")
    (tmp_path / "bad.yaml").write_text(DEPLOYMENT.replace("  replicas: 1", "  replica: 1"), encoding="utf-8")
    code = ("import sys; from cfglint.read.yamlsrc import parse_yaml; from cfglint.schema.k8sschema import validate_object; "
            "p = sys.argv[1]; r = validate_object(parse_yaml(open(p).read(), p), p); "
            "print(len(r), 'jsonschema' in sys.modules, 'jsonschema_rs' in sys.modules)")
    env = dict(os.environ, CFGLINT_CACHE_DIR=str(tmp_path / "cache"))

    def run(name):
        return subprocess.run([sys.executable, "-c", code, str(tmp_path / name)], capture_output=True, text=True,
                              check=True, env=env).stdout.split()

    assert run("d.yaml") == ["0", "False", "True"]   # passed by the fast check (jsonschema-rs) alone
    assert run("d.yaml") == ["0", "False", "False"]
    assert run("bad.yaml") == ["1", "True", "True"]  # not passed: jsonschema finds the error
    assert run("bad.yaml") == ["1", "True", "True"]


def test_enum_value_of_the_kubernetes_api():
    text, f = _one(DEPLOYMENT, "          image: lmsysorg/sglang:latest\n",
                   "          image: lmsysorg/sglang:latest\n          imagePullPolicy: IfNotPresnt\n")
    assert (f.span.line, f.span.col) == position(text, "IfNotPresnt")
    assert "imagePullPolicy" in f.message and "did you mean 'IfNotPresent'" in f.message
    text, f = _one(DEPLOYMENT, "type: DirectoryOrCreate", "type: Dir")
    assert (f.span.line, f.span.col) == position(text, "Dir\n")
    assert "hostPath.type: 'Dir' is not an allowed value; allowed: '', 'DirectoryOrCreate'" in f.message
    assert "None" not in f.message


def test_deploy_time_placeholders_are_not_checked_not_errors():
    # envsubst and Helm templates fill these in at deploy time: not an error of the manifest as
    # written, and not a silent pass either
    text = DEPLOYMENT.replace("  replicas: 1", "  replicas: ${REPLICAS}").replace(
        "containerPort: 30000", "containerPort: '{{ .Values.port }}'")
    result = _check(text)
    assert list(result) == []
    assert [(p.span.line, p.span.col) for p in result.partial] == [position(text, "${REPLICAS}"),
                                                                     position(text, "'{{ .Values.port }}'")]
    assert all("placeholder filled in at deploy time" in p.why for p in result.partial)
    # a misspelled key next to a placeholder is still reported
    (f,) = _check(text.replace("  replicas: ${REPLICAS}", "  replica: ${REPLICAS}"))
    assert "did you mean 'replicas'" in f.message


def test_a_probe_indented_under_a_volume_says_where_it_belongs():
    # as in a published RoleBasedGroup example: the probes sit under volumes[0], not the container
    text = DEPLOYMENT.replace("            sizeLimit: 64Gi\n",
                              "            sizeLimit: 64Gi\n          readinessProbe:\n            httpGet: {path: /health, port: 30000}\n")
    (f,) = _check(text)
    assert (f.span.line, f.span.col) == position(text, "readinessProbe:")
    assert "'readinessProbe' is not a field of the Deployment's spec.template.spec.volumes[1]" in f.message
    assert "is a field of a container" in f.message and "indented" in f.message


def test_a_kustomize_patch_may_leave_out_required_fields():
    patch = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: x\nspec:\n  template:\n    spec:\n" \
            "      containers:\n      - name: sglang\n        args: [--tp-size, '8']\n"
    assert [f.message for f in _check(patch)] == ["the Deployment's spec: 'selector' is required here and missing"]
    assert list(validate_object(parse_yaml(patch, "p.yaml"), "p.yaml", patch=True)) == []
    typo = patch.replace("        args:", "        arg:")
    (f,) = validate_object(parse_yaml(typo, "p.yaml"), "p.yaml", patch=True)
    assert "did you mean 'args'" in f.message


def _generator():
    from cfglint.knowledge.build import k8s_schemas

    return k8s_schemas


CRD = """\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
spec:
  group: example.x-k8s.io
  names: {kind: Example}
  versions:
  - name: v1
    schema:
      openAPIV3Schema:
        type: object
        properties:
          apiVersion: {type: string}
          kind: {type: string}
          metadata: {type: object}
          spec:
            type: object
            required: [template, rollout]
            properties:
              size: {type: integer, default: 1, minimum: 1, description: words}
              mode: {type: string, enum: [A, B]}
              maxSurge: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              extra: {type: object, x-kubernetes-preserve-unknown-fields: true}
              rollout:
                type: object
                required: [type]
                properties:
                  type: {type: string, default: RollingUpdate}
              template:
                type: object
                properties:
                  metadata: {type: object}
                  spec:
                    type: object
                    required: [containers]
                    properties:
                      containers: {type: array, items: {type: object}}
          status: {type: object, properties: {ready: {type: integer}}}
"""


def test_generator_writes_the_facts_of_a_crd_as_the_server_applies_them(tmp_path):
    gen = _generator()
    (tmp_path / "crd.yaml").write_text(CRD, encoding="utf-8")
    out = gen.crd(str(tmp_path / "crd.yaml"), "v1", "example", "owner/repo path.yaml at abc123")
    spec = out["properties"]["spec"]
    assert out["x-source"] == "owner/repo path.yaml at abc123" and out["x-kind"] == "Example"
    assert spec["additionalProperties"] is False and out["additionalProperties"] is False   # closed
    assert spec["properties"]["size"] == {"type": ["integer", "null"], "minimum": 1}          # no prose, no default
    assert spec["properties"]["mode"]["enum"] == ["A", "B", None]
    assert spec["properties"]["maxSurge"] == {"type": ["integer", "string", "null"]}
    assert "additionalProperties" not in spec["properties"]["extra"]                          # preserved: open
    assert "required" not in spec["properties"]["rollout"]            # defaulted by the server before validation
    assert spec["required"] == ["template", "rollout"]
    assert spec["properties"]["template"] == {"$ref": "core.json#/$defs/io.k8s.api.core.v1.PodTemplateSpec"}
    assert out["properties"]["metadata"]["$ref"].endswith("ObjectMeta") and out["properties"]["status"] == {
        "type": ["object", "null"]}


def test_a_manifest_a_launch_script_writes_is_checked_at_its_lines(tmp_path):
    d = copy_submission("artificial-analysis/kimi-k3/b300-sglang-tp8", tmp_path)
    script = d / "run.sh"
    body = DEPLOYMENT.replace("  replicas: 1", "  replica: 1")
    script.write_text(script.read_text(encoding="utf-8") + "cat > deploy.yaml <<'EOF'\n" + body
                      + "EOF\nkubectl apply -f deploy.yaml\n", encoding="utf-8")
    found = only(lint(d), "K8S004")
    assert [(f[1], f[2], f[3]) for f in found] == [("run.sh", position(script.read_text(), "replica:")[0], 3)]


def test_a_label_yaml_reads_as_a_number_or_boolean_names_the_text_as_written():
    text = DEPLOYMENT.replace("    app: deepseek-v4-flash\nspec:", "    app: deepseek-v4-flash\n    version: 1.10\nspec:")
    (f,) = _check(text)
    assert (f.span.line, f.span.col) == position(text, "1.10")
    assert "metadata.labels.version" in f.message and 'YAML reads 1.10 as a number: quote it, "1.10"' in f.message


def test_the_check_reads_manifest_documents_the_load_stage_keeps_apart():
    # a load stage that keeps a manifest's documents as (display, root) pairs in sub.k8s_objects
    from types import SimpleNamespace

    from cfglint.checks.k8s_schema import invalid_workload

    gaps = []
    bad = DEPLOYMENT.replace("  replicas: 1", "  replica: 1")
    sub = SimpleNamespace(configs=[], findings=[], k8s_objects=[
        ("a.yaml", parse_yaml(bad, "a.yaml")), ("b.yaml", parse_yaml("apiVersion: v1\nkind: Service\n", "b.yaml"))])
    ctx = SimpleNamespace(sub=sub, not_checked=lambda check, why, span: gaps.append(why))
    found = list(invalid_workload(ctx))
    assert [(f.span.path, f.span.line) for f in found] == [("a.yaml", position(bad, "replica:")[0])]
    assert gaps == []   # a Service runs no container: no gap (issue 23)
    sub.findings = found   # the load stage validated a.yaml already: not again
    assert list(invalid_workload(ctx)) == []


def test_a_manifest_with_thousands_of_errors_reports_the_first_ones_and_says_so():
    n = 1000
    text = "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n" + "".join(
        f"  - {{name: c{i}, imag: x}}\n" for i in range(n))
    result = _check(text)
    assert len(result) == k8sschema.MAX_ERRORS < n
    assert [p.why for p in result.partial] == [f"only the first {k8sschema.MAX_ERRORS} schema errors of this Pod are "
                                               "reported"]


# Published serving objects of the kinds added for issue 23 (../shared/corpus, read in place; a
# changed copy goes to tmp_path): AIBrix RayClusterFleet (vllm-project/aibrix samples/distributed at
# e3e10f9e4aeb), KServe LLMInferenceServiceConfig (config/llmisvcconfig, docs/samples/llmisvc at
# aaac4e294dae) and ClusterServingRuntime (config/runtimes at aaac4e294dae). Each passes as
# published; one unknown field under its spec fails with K8S004 at that key.
PUBLISHED = [
    ("019-aibrix-distributed-fleet-two-node/fleet-two-node.yaml", "RayClusterFleet"),
    ("062-aibrix-distributed-fleet/fleet.yaml", "RayClusterFleet"),
    ("042-kserve-llmisvcconfig-config-llm-template/config-llm-template.yaml", "LLMInferenceServiceConfig"),
    ("071-kserve-e2e-gpt-oss-llmisvc-config-pd-disagg/llmisvc_config_pd_disagg.yaml", "LLMInferenceServiceConfig"),
    ("072-kserve-llmisvcconfig-config-llm-decode-worker-data-parallel/config-llm-decode-worker-data-parallel.yaml",
     "LLMInferenceServiceConfig"),
    ("043-kserve-runtimes-kserve-vllmserver/kserve-vllmserver.yaml", "ClusterServingRuntime"),
]


def _lint_file(path: Path):
    result = lint_paths([str(path)])
    return [f for f in result.findings if f.rule_id == "K8S004"], [f for f in result.findings if f.rule_id == "COV001"]


@pytest.mark.parametrize("rel,kind", PUBLISHED, ids=[p.split("/")[0][:3] for p, _ in PUBLISHED])
def test_published_serving_object_is_validated_and_one_unknown_spec_field_fails(rel, kind, tmp_path):
    src = shared("corpus") / rel
    found, notes = _lint_file(src)
    assert found == []
    assert not any("K8S004" in f.message for f in notes)   # validated: no "no schema for ..." note
    text = src.read_text(encoding="utf-8")
    at = text.index("\nspec:\n") + len("\nspec:\n")
    changed = text[:at] + "  bogusField: 1\n" + text[at:]
    bad = tmp_path / src.name
    bad.write_text(changed, encoding="utf-8")
    (f,) = _lint_file(bad)[0]
    assert (f.span.line, f.span.col) == position(changed, "bogusField")
    assert f"'bogusField' is not a field of the {kind}'s spec" in f.message


def test_a_rayclusterfleet_pod_template_is_a_kubernetes_pod_template(tmp_path):
    # in the RayCluster spec of a fleet: a misspelled KubeRay field and a quoted port of the head pod
    src = shared("corpus") / PUBLISHED[0][0]
    bad = tmp_path / src.name
    bad.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
    line = replace_once(bad, "        rayStartParams:\n          dashboard-host",
                        "        rayStartParam:\n          dashboard-host")
    replace_once(bad, "                  - containerPort: 6379", '                  - containerPort: "6379"')
    text = bad.read_text(encoding="utf-8")
    found = _lint_file(bad)[0]
    # the CRD requires headGroupSpec.rayStartParams (and template): reported at headGroupSpec too
    assert [(f.span.line, f.span.col) for f in found] == [position(text, "headGroupSpec:"), (line, 9),
                                                          position(text, '"6379"')]
    assert "headGroupSpec: 'rayStartParams' is required" in found[0].message
    assert "did you mean 'rayStartParams'" in found[1].message
    assert "containerPort" in found[2].message and "write it without quotes: 6379" in found[2].message
