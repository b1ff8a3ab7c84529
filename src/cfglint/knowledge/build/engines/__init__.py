"""The engine-release knowledge compiler: what a launch can say to each pinned release of vLLM,
SGLang (and sglang-router), NVIDIA Dynamo and TensorRT-LLM, read statically from the released
packages.

- :mod:`.pins`: the pinned inputs (rules/releases/inputs.yaml) and the releases they make;
- :mod:`.fetch`: downloading, checking and extracting them into a cache directory;
- :mod:`.static`: the static Python evaluator every extractor uses (nothing is imported or run);
- :mod:`.vllm`, :mod:`.sglang`, :mod:`.dynamo`, :mod:`.trtllm`: one extractor per engine,
  ``extract(source_root, version) -> dict``;
- :mod:`.command`: the ``engines`` target of ``python -m cfglint.knowledge.build``.
"""

from __future__ import annotations


def main(argv: list[str] | None = None) -> int:
    from .command import main as run
    return run(argv)
