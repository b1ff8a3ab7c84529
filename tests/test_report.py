"""Output formats on findings of every shape."""

from __future__ import annotations

from cfglint.model import Finding, Span
from cfglint.output import report


def test_github_single_and_multi_line_spans_and_escaping():
    one = Finding("RED001", "path 'a,b:c' 100%", Span("sub/run,1.sh", 3, 5, 3, 9), level="error")
    multi = Finding("SUB001", "bad\nmapping", Span("sub/submission.yaml", 2, 1, 6, 3), level="warning")
    quiet = Finding("TOP001", "x", Span("a", 1, 1, 1, 2), level="error", suppressed="why")
    lines = report.github([one, multi, quiet]).splitlines()
    assert lines == [
        "::error file=sub/run%2C1.sh,line=3,col=5,endColumn=9,title=RED001::RED001 path 'a,b:c' 100%25",
        "::warning file=sub/submission.yaml,line=2,col=1,endLine=6,title=SUB001::SUB001 bad%0Amapping",
    ]


def test_text_caret_under_tabs_and_wide_characters():
    f = Finding("RED001", "m", Span("f.sh", 1, 4, 1, 6), level="error")
    out = report.text([f], {"f.sh": ["\t模x/ab"]}, "summary").splitlines()
    assert out[1] == "    \t模x/ab" and out[2] == "    \t   ^^"
