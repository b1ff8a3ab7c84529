"""The error ``cfglint init`` reports for bad input."""


class InitError(Exception):
    """Bad input for ``cfglint init``: ``str(err)`` is a one-line message (exit 2)."""
