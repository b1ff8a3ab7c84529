"""Edit: the commands that write a user's files.

:mod:`.fix` applies ``--fix`` (span replacements, byte for byte elsewhere; key moves through
:mod:`.roundtrip`, ruamel.yaml's round-trip mode); :mod:`.init` derives ``submission.yaml`` from
launch files with the same load and deploy stages ``cfglint check`` uses. Writes are atomic and
never leave the working tree. Imports every stage below it.
"""
