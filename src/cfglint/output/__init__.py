"""Output: findings to reports.

Takes the run's findings (credentials already masked by :mod:`.masking`, the one choke point);
gives text, json, github and sarif (:mod:`.report`), gitlab, junit and rdjson
(:mod:`.ciformats`) and markdown (:mod:`.markdown`, the job summary); :mod:`.merge` joins the
SARIF of a sharded run, :mod:`.explain` describes a deployment as resolved (``cfglint explain``). Every string from input passes :mod:`.neutral` (control characters and CI
workflow-command syntax made inert); :mod:`.ruledocs` renders each rule's page. Imports every
stage below it; nothing below imports it.
"""
