"""Edit: the commands that write a user's files.

:mod:`.fix` makes each finding's fix as one edit (:func:`.fix.fix_of`), which ``--fix`` writes,
``--diff`` prints, SARIF carries and editor code actions apply (span replacements, byte for byte
elsewhere; key moves through :mod:`.roundtrip`, ruamel.yaml's round-trip mode); :mod:`.init` derives ``submission.yaml`` from
launch files with the same load and deploy stages ``cfglint check`` uses. Writes are atomic and
never leave the working tree. Imports every stage below it.
"""
