"""What reading a Kubernetes manifest makes: the pod templates of a workload (:class:`PodGroup`),
the containers that run a command (:class:`Container`) and what a file holds (:class:`Manifest`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...model import Finding, Located, Span, parse_int
from ..shell import Command
from ..yamlsrc import YMap


@dataclass(slots=True)
class PodGroup:
    """One pod template of a workload and how many pods run it.

    ``replicas``: groups (Deployment replicas, LWS replicas, DisaggregatedSet role replicas x
    slices); ``size``: pods per group (LWS size; None: 1); ``part``: "leader" / "worker" for an
    LWS template (the worker template stands for ``size - 1`` pods, or ``size`` pods when it is
    also the leader's: ``part`` "all"); ``role``: the DisaggregatedSet role name."""

    kind: str
    name: str
    kind_span: Span
    spec: YMap                     # the pod spec (containers, volumes, hostIPC, nodeSelector ...)
    replicas: Located | None = None
    size: Located | None = None
    part: str | None = None
    role: Located | None = None
    containers: list | None = None     # the containers, when not spec.containers (Dynamo v1alpha1 mainContainer)
    gpu_limit: Located | None = None   # GPUs per pod given outside the container (Dynamo v1alpha1 resources.limits.gpu)
    gpu_key: str | None = None         # the key that count is written under there ("gpu"), for messages
    operator: str | None = None        # "dynamo": the operator adds the multi-node flags itself
    # "kserve": a container without a command runs the LLMInferenceService preset's vLLM launch
    # (cfglint.read.k8s.kinds.kserve.preset_command); ``extra`` holds what it needs
    extra: dict | None = None
    # where the pods' GPUs are set when not in this object (a ServingRuntime's or an
    # LLMInferenceServiceConfig's are the InferenceService's / LLMInferenceService's): K8S001
    # then notes the count as not checked instead of reporting a pod that asks for none
    gpus_elsewhere: str | None = None
    # environment the operator sets in every container of the template before the container's own
    # ``env`` (items of name / value / valueFrom): a DynamoGraphDeployment's ``spec.envs``, then the
    # service's ``envs``; a name set again later wins
    env: list | None = None
    # a count of pods the reader could not take (why, where): the API server refuses it (K8S004),
    # so the pods per group are not known (a RayCluster worker group's replicas: 10^30)
    bad_count: tuple[str, Span] | None = None

    def pods_per_instance(self) -> int:
        """Pods one instance of the engine spans: the LWS group size, else 1 (also for a size the
        API server refuses: :meth:`size_problem` says so, and checks of the pods' devices do not run)."""
        n = parse_int(self.size.value) if self.size is not None else None
        return n if n and n > 0 else 1

    def size_problem(self) -> tuple[str, Span] | None:
        """(why, where) when the group's pod count is not one the API server accepts (a size
        below 1, beyond int32, not an integer); None when it is, or when there is no size."""
        if self.bad_count is not None:
            return self.bad_count
        why = count_problem(self.size, f"{self.kind} size", 1)
        return (why, self.size.span) if why is not None and self.size is not None else None


INT32_MAX = (1 << 31) - 1   # replicas, LWS size, worker replicas: int32 fields (format: int32 in their schemas)


def count_problem(loc: Located | None, what: str, minimum: int = 0) -> str | None:
    """Why a count (replicas, a group size) is not one the API server accepts: not an integer,
    below ``minimum``, beyond the int32 maximum; None when it is (or there is none)."""
    if loc is None:
        return None
    v = loc.value
    n = v if isinstance(v, int) and not isinstance(v, bool) else parse_int(v)
    shown = str(v) if len(str(v)) <= 40 else str(v)[:20] + "..."
    if n is None:
        return f"{what} {shown} is not an integer"
    if n > INT32_MAX:
        return f"{what} {shown} exceeds the int32 maximum {INT32_MAX}"
    if n < minimum:
        return f"{what} {n} is below the minimum {minimum}"
    return None


@dataclass(slots=True)
class Container:
    """A container of a pod template that runs a command: its node, image and accelerator
    device resources, GPUs or TPU chips (resource name -> (limit, request), each with its span;
    the names: rules/accelerators.yaml resources)."""

    group: PodGroup
    node: YMap
    name: str
    image: Located | None
    gpus: dict[str, tuple[Located | None, Located | None]] = field(default_factory=dict)
    entrypoint: bool = False       # no ``command``: the image's entrypoint runs ``args``

    def written(self, res: str) -> str:
        """How the file names resource ``res``: the group's own key (a Dynamo v1alpha1 service's
        ``resources.limits.gpu``) when the count is the group's, else the resource name."""
        g = self.group
        given = self.gpus.get(res, (None, None))[0]
        return f"resources.limits.{g.gpu_key}" if g.gpu_key and given is not None and given is g.gpu_limit else res

    def gpu_count(self) -> tuple[str, Located] | None:
        """(resource, count) the container is given: its limit, else its request."""
        for res, (lim, req) in self.gpus.items():
            loc = lim or req
            if loc is not None:
                return res, loc
        return None


@dataclass(slots=True)
class Manifest:
    """What a manifest file holds: its objects (node, kind), the commands of its containers
    (with the role each is for), the kinds not modelled (kind, span) and load findings."""

    objects: list[YMap] = field(default_factory=list)
    commands: list[tuple[Command, str | None]] = field(default_factory=list)
    not_modelled: list[tuple[str, Span]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
