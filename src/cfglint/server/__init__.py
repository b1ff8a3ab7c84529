"""``cfglint server``: a Language Server (LSP over standard input and output) that lints as the
user types: the diagnostics of ``cfglint check`` for launch scripts, worker argument files,
engine YAML, Kubernetes manifests and ``submission.yaml``, a code action for every fix, hovers
on flags and YAML keys, and the rules' documentation on diagnostics.

On top of the pipeline, beside the command line: :mod:`.session` holds the workspace folders,
open buffers and each unit's last lint (no protocol), :mod:`.positions` converts cfglint's
positions to the editor's, :mod:`.meaning` says what the flag or key under the cursor means, and
:mod:`.app` speaks LSP through pygls / lsprotocol (the ``server`` extra), imported only here: no
other command loads them.
"""

from __future__ import annotations


def serve() -> None:
    """Run the language server on standard input and output until the client ends it."""
    from .app import build

    build().start_io()
