"""Read: bytes to positioned trees, with no knowledge of engines.

Takes a path or a text; gives each file parsed once with source spans on every node and word:
:mod:`.textfile` (lines, byte offsets), :mod:`.yamlsrc` (YAML trees, every node with its span,
plain-word errors from :mod:`.yamlmsg`), :mod:`.shell` (launch scripts evaluated statically into
:class:`~.shell.Command` s of positioned words, the native parser in one worker process),
:mod:`.argsfile` (worker argument files), :mod:`.k8s` (Kubernetes workloads: each container a
Command). Every file is opened through :mod:`.safeio` (no link out of the tree, regular files
only, bounded size); :mod:`.paths` writes file names as text. Imports only :mod:`cfglint.model`.
"""
