"""Rules about configuration files themselves (reported while the configuration is read, not by a
check over a submission): CFG001, a nested configuration doing more than the root allows."""

from .base import register

register(
    "CFG001", "untrusted-configuration", "error",
    "A configuration file below the repository's root sets something the root configuration does "
    "not allow nested configurations to set; it is ignored.",
    "cfglint runs in pre-commit and CI on files contributors write, and a contributor can add a "
    "configuration file next to their own files (`submissions/x/.cfglint.yaml` or a pyproject.toml "
    "with [tool.cfglint]). Such a file could otherwise select only an unrelated rule and silence "
    "every check, leaked credentials (RED002) included, whenever only that directory is linted. So "
    "the configuration at the root of the git working tree cfglint runs in (or `--config`) is the "
    "authority: a configuration below it may set only the keys the root lists in `allow-nested` "
    "(`select`, `ignore`, `per-file-ignores`, `levels`), acts only on files under its own directory, "
    "and can never drop or lower RED002 or CFG001. Everything else it sets (and a file that does not "
    "parse, or is a symbolic link) is ignored, and this finding points at it.",
    ("cfglint README, 'Suppressions, configuration, baselines, fixes' (the trust model of configuration files)",
     "git-scm.com/docs/gitrepository-layout (.git marks the top of a working tree; a linked worktree or "
     "submodule has a .git file)"),
    tags=("security",))
