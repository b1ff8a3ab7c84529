"""SUB003 and SUB004: serving files a run would otherwise not check as part of a submission.

Both are reported by the pipeline (:mod:`cfglint.lint`), which lints every such file on its own
all the same, in directory mode and when the file is named (pre-commit), so local and CI runs
agree.
"""

from .base import register

register(
    "SUB003", "unlisted-file", "warning",
    "A launch file or engine config in a submission directory that the manifest does not list.",
    "A submission is its manifest and the files it names: topology, declared-vs-launched, "
    "parser and kernel checks read only those. A shell script that starts an engine, a worker "
    "argument file (`*.args`) or an engine YAML lying next to them but not listed in "
    "`files.launch` / `files.configs` is published without being checked as part of the "
    "submission, and readers cannot tell whether it is the launch that was measured. cfglint "
    "lints such a file on its own (syntax, flags, parsers, redaction) and reports it. README "
    "files, results (JSON, CSV, logs), hidden files, helper scripts that start no engine and "
    "YAML that is not an engine config are not reported.",
    ("schemas/submission.schema.json (files.launch, files.configs)",
     "README.md, 'Usage' (a submission is a directory with submission.yaml and the files it names)"))

register(
    "SUB004", "submission-without-manifest", "warning",
    "A directory under the scanned root holds launch files or engine configs but no submission.yaml.",
    "cfglint checks a directory as a submission only when it holds `submission.yaml`. Launch "
    "files elsewhere under the scanned root are linted on their own (flags, parsers, secrets, "
    "host paths), but nothing compares them with a declared system, model or accelerator count. "
    "This warning makes the gap visible in every output format (text, JSON, GitHub, SARIF) "
    "instead of a line on standard error, one finding per directory at its first launch file. "
    "It comes from searching a directory: a file named on the command line (as pre-commit "
    "names the staged files) is taken as meant to be linted on its own and gets none. "
    "Add a manifest, or name the files on the command line to lint them on their own.",
    ("schemas/submission.schema.json (the manifest format)",))
