"""Output: findings to reports.

Takes the run's findings (credentials already masked by :mod:`.masking`, the one choke point);
gives text, json, github and sarif (:mod:`.report`) and gitlab, junit and rdjson
(:mod:`.ciformats`). Every string from input passes :mod:`.neutral` (control characters and CI
workflow-command syntax made inert); :mod:`.ruledocs` renders each rule's page. Imports every
stage below it; nothing below imports it.
"""
