"""Schema: JSON Schema validation with findings at YAML positions.

Takes a positioned YAML tree and a schema under ``schemas/``; gives findings whose spans are
the offending keys or values (:mod:`.validation`, keywords mapped to messages). A compiled
yes/no check answers first (:mod:`.fastschema`, jsonschema-rs); jsonschema words only the
documents it does not pass. :mod:`.k8sschema`: Kubernetes workload kinds and serving CRDs. :mod:`.describe`: what a key
means, from its schema (editor hovers).
Imports read and knowledge.
"""
