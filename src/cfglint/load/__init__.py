"""Load: paths to submissions.

:mod:`.discover` finds a run's submissions (directories holding ``submission.yaml``) and loose
files; :mod:`.submission` reads every file of one submission once through :mod:`cfglint.read`,
validates the manifest against its schema (:mod:`cfglint.schema`) and its names against the
knowledge base, and gives a :class:`~.submission.Submission` with this stage's findings
(IO001, SUB001, SUB002). Imports read, knowledge and schema.
"""
