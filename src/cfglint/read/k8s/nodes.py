"""Reading the YAML nodes of a Kubernetes object: is it one, a scalar's value, the mapping at a
path, a scalar as a :class:`~cfglint.model.Located`."""

from __future__ import annotations

from ...model import Located
from ..yamlsrc import YMap, YNode, YScalar


def is_object(node: YNode | None) -> bool:
    """A Kubernetes object: a mapping with string ``apiVersion`` and ``kind``."""
    return isinstance(node, YMap) and isinstance(scalar_value(node.get("apiVersion")), str) \
        and isinstance(scalar_value(node.get("kind")), str)


def scalar_value(node: YNode | None):
    """The value of a scalar node; None for any other node or none."""
    return node.value if isinstance(node, YScalar) else None


def map_at(node: YNode | None, *path: str) -> YMap | None:
    """The mapping reached from ``node`` by the keys of ``path``, or None."""
    for key in path:
        node = node.get(key) if isinstance(node, YMap) else None
    return node if isinstance(node, YMap) else None


def located(node: YNode | None) -> Located | None:
    """A scalar's value with its span; None for a null or a node that is not a scalar."""
    return Located(node.value, node.span) if isinstance(node, YScalar) and node.value is not None else None
