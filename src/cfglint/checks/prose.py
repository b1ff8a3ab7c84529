"""Which parts of a submission's shell files are text for a reader, not settings (help and usage
text, comments, case patterns: read/shell/text.py), for the rules that read ``--flag value`` and
``NAME=value`` shapes line by line (RED002, RED003)."""

from __future__ import annotations

from ..read.shell import ShellScript
from ..read.shell.text import Regions
from .base import Context


def text_regions(ctx: Context) -> dict[str, Regions]:
    """Per shell file (display path): regions that are text for a reader, not settings (usage
    and help text, echo / printf to the terminal, comments, case patterns; read/shell/text.py).
    Made once per context (RED002 and RED003 both ask; the last context's answer is kept)."""
    held = _REGIONS_OF
    if held and held[0] is ctx and held[1] is ctx.sub.launches:
        return held[2]
    out = {display: Regions(script.text) for display, script, _role, _args in ctx.sub.launches
           if isinstance(script, ShellScript) and script.text}
    _REGIONS_OF[:] = [ctx, ctx.sub.launches, out]
    return out


_REGIONS_OF: list = []   # [context, its launches, their regions]: the last one asked for
