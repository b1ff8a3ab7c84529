"""Rules reported by the load stage: unreadable files, manifest schema, missing files."""

from .base import register

register(
    "IO001", "unreadable-file", "error",
    "A file cannot be read or parsed (syntax, encoding, size, binary, duplicate keys).",
    "cfglint reads every file of a submission as UTF-8 text and parses it (YAML or shell) "
    "without executing anything. A file that cannot be read or parsed cannot be checked, and "
    "an engine would refuse it too (or, for duplicate YAML keys, silently keep only the last "
    "value; in an engine config, which the engines read with yaml.safe_load, a key repeated with "
    "the same value changes nothing and is a warning). YAML merge keys (`<<: *defaults`) are applied as safe loaders apply them; a merge "
    "key whose value is not a mapping or a list of mappings, an alias inside the node it names, "
    "and aliases that expand a document to more than 200000 nodes or 20 million characters "
    "('billion laughs') are IO001. The other files of the run are still checked.",
    ("YAML 1.1 / 1.2 specification (duplicate keys are an error); tree-sitter-bash grammar",
     "YAML 1.1 merge key type, https://yaml.org/type/merge.html (written keys win; earlier mappings of a list win)",
     "PyYAML lib/yaml/constructor.py SafeConstructor.flatten_mapping (refuses a merge of a non-mapping)",
     "vllm==0.33.0 vllm/utils/argparse_utils.py FlexibleArgumentParser.load_config_file and sglang==0.5.23 "
     "sglang/srt/utils/server_args_config_parser.py ConfigArgumentMerger (--config read with yaml.safe_load)"))

register(
    "SUB001", "invalid-manifest", "error",
    "submission.yaml violates its JSON Schema (schemas/submission.schema.json).",
    "The manifest states what a submission claims: model, precision, system, engine, roles "
    "and their parallelism, speculative decoding, accelerators used. Every cross-field check "
    "compares the launch with these claims, so they must be present and well typed. Quote "
    "versions (`\"1.10\"`), since YAML reads 1.10 as the number 1.1.",
    ("examples/README.md, 'Manifest fields (v1)': the fixed minimum, never renamed", "schemas/submission.schema.json"))

register(
    "SUB002", "missing-file", "error",
    "The manifest names a file that is not there, or one outside the submission directory.",
    "files.launch and files.configs name the published launch files and engine YAML, relative "
    "to the submission directory. A missing file means the published configuration is "
    "incomplete; a path outside the directory (absolute, or escaping with ..) is refused so a "
    "submission can only describe its own files.",
    ("README.md: a submission is a directory with submission.yaml and the files it names", "schemas/submission.schema.json (files.launch, files.configs)"))

register(
    "SUP001", "unused-suppression", "warning",
    "A '# cfglint: disable=ID' comment silences no finding.",
    "A suppression that matches nothing is stale: the problem was fixed, the ID is wrong, or "
    "the comment is not on the finding's line or the line before it. Remove it so it cannot "
    "hide a future finding. In a comment naming several rules, each rule that silences nothing "
    "while the others do is reported at its own place in the comment: remove it from the list.",
    ("ruff RUF100 (unused-noqa), the model for this rule",))

register(
    "SUP002", "suppression-without-reason", "error",
    "A suppression gives no reason, and the configuration requires one.",
    "With require-reason set, every '# cfglint: disable=ID' must say why after ' -- ', so a "
    "reviewer can judge it: '# cfglint: disable=RED001 -- path inside the container image'.",
    ("cfglint configuration: require-reason",))
