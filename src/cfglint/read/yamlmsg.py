"""YAML syntax errors in plain words.

PyYAML describes a syntax error in terms of its parser ("expected <block end>, but found
'<block mapping start>'", "mapping values are not allowed here"). :func:`explain` turns the
common ones into what a person fixing a configuration needs: what is wrong on that line, the
line it conflicts with, and the fix. The position is PyYAML's own (its problem mark); only the
words change. An error this module does not recognize keeps PyYAML's problem, with its parser
token names replaced by plain ones.
"""

from __future__ import annotations

import re

import yaml

from .textfile import LineIndex

# PyYAML's token names (yaml/tokens.py ``id``), as a person would say them
_TOKENS = {
    "'<block end>'": "the end of the indented block",
    "<block end>": "the end of the indented block",
    "'<block mapping start>'": "a new key",
    "'<block sequence start>'": "a new list",
    "'<scalar>'": "a value",
    "'<alias>'": "an alias (*name)",
    "'<anchor>'": "an anchor (&name)",
    "'<tag>'": "a tag (!name)",
    "'<document start>'": "a new document ('---')",
    "<document start>": "a new document ('---')",
    "'<document end>'": "a document end ('...')",
    "'<stream end>'": "the end of the file",
    "'<flow mapping start>'": "'{'",
    "'<flow sequence start>'": "'['",
    "'?'": "a key",
    "'-'": "a list item ('-')",
}
_TOKEN = re.compile("|".join(re.escape(k) for k in sorted(_TOKENS, key=len, reverse=True)))


def _words(problem: str) -> str:
    return _TOKEN.sub(lambda m: _TOKENS[m.group(0)], " ".join(problem.split()))


def _spaces(n: int) -> str:
    return f"{n} space" if n == 1 else f"{n} spaces"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _shown(text: str, limit: int = 40) -> str:
    text = text.strip()
    text = text if len(text) <= limit else text[: limit - 3] + "..."
    return repr(text).replace("\\\\", "\\")


def _previous(lines: list[str], line_no: int) -> int | None:
    """The number of the last line before ``line_no`` that holds more than blanks or a comment."""
    return next((n for n in range(line_no - 1, 0, -1)
                 if lines[n - 1].strip() and not lines[n - 1].lstrip().startswith("#")), None)


def explain(err: yaml.MarkedYAMLError, text: str) -> str:
    """A one-line, plain-words description of ``err`` (raised while composing ``text``, whose
    lines end with LF) and of its fix; at the error's problem mark (or its context mark when
    it has none). Never raises."""
    try:
        return _explain(err, text)
    except Exception:  # noqa: BLE001 - an unexpected shape: PyYAML's words, made plainer
        return _words(str(err.problem or err.context or "syntax error"))


def _explain(err: yaml.MarkedYAMLError, text: str) -> str:
    index = LineIndex(text)
    lines = text.split("\n")
    problem = " ".join(str(err.problem or "").split())
    context = " ".join(str(err.context or "").split())
    mark = err.problem_mark or err.context_mark
    line_no, col = index.position(mark.index) if mark is not None else (1, 1)
    line = lines[line_no - 1] if 0 < line_no <= len(lines) else ""
    ctx_line, ctx_col = index.position(err.context_mark.index) if err.context_mark is not None else (line_no, col)
    ctx_text = lines[ctx_line - 1] if 0 < ctx_line <= len(lines) else ""
    ind = _indent(line)
    first_on_line = not line[: col - 1].strip()

    if problem.startswith("expected <block end>, but found "):
        found = problem[len("expected <block end>, but found "):]
        in_list = "block collection" in context  # a block sequence: its context mark is the first '-'
        if not first_on_line:
            if found == "'<scalar>'":
                return ("unexpected text after the value on this line (a quoted value ends at its closing quote); "
                        "quote the whole value, or remove what follows it")
            if found in ("']'", "'}'"):
                opener = "'['" if found == "']'" else "'{'"
                return (f"unexpected {found} with no matching {opener} before it; remove it, or open the list or "
                        "mapping it closes")
            return f"unexpected {_words(found)} after the value on this line; quote the whole value, or remove it"
        if found == "'-'" and not in_list:
            return (f"a list item ('-') among the keys of the mapping that starts at line {ctx_line}; a list is "
                    "the value of a key: put it under its key (`key:` on the line above, the items indented "
                    "further), or indent it like the list it belongs to")
        if in_list:
            dash = ctx_col - 1
            return (f"this line's indentation ({_spaces(ind)}) does not match the list above (line {ctx_line}, "
                    f"'-' at {_spaces(dash)}); start a new item with '- ' at {_spaces(dash)}, or indent a key of "
                    f"the item exactly like the item's first key")
        prev = _previous(lines, line_no)
        if prev is not None and _indent(lines[prev - 1]) != ctx_col - 1:
            return (f"this line's indentation ({_spaces(ind)}) matches neither the line above (line {prev}, "
                    f"{_spaces(_indent(lines[prev - 1]))}) nor the mapping that holds it (line {ctx_line}, keys at "
                    f"{_spaces(ctx_col - 1)}); indent it exactly like the keys it belongs with")
        return (f"this line's indentation ({_spaces(ind)}) does not match the mapping above (line {ctx_line}, keys "
                f"at {_spaces(ctx_col - 1)}); indent it exactly like the keys it belongs with")

    if problem == "mapping values are not allowed here":
        before = line[: col - 1]
        if ": " in before.lstrip("- ") or before.rstrip().endswith(":"):
            return ("a second ': ' on this line: a value that contains ': ' must be quoted (key: \"a: b\"), "
                    "and a nested mapping goes on the lines below its key, indented")
        prev = _previous(lines, line_no)
        if prev is not None:
            prev_ind = _indent(lines[prev - 1])
            if ind > prev_ind:
                return (f"this line is indented more ({_spaces(ind)}) than line {prev} ({_spaces(prev_ind)}), so "
                        f"YAML reads it as the rest of line {prev}'s value and its ':' is out of place; indent it "
                        f"like its sibling keys")
            return (f"YAML reads this key as the rest of line {prev}, which has no ': '; end line {prev} with ':' "
                    f"(or give it its value), or remove it")
        return "a ':' out of place: quote a value that contains ': '"

    if problem.startswith("found character ") and problem.endswith("that cannot start any token"):
        char = problem[len("found character "): -len(" that cannot start any token")]
        if char == "'\\t'":
            return "a tab character: YAML indents with spaces only; replace the tab by spaces"
        return f"a plain value cannot start with {char} (it is reserved in YAML); quote the value"

    if context in ("while scanning a quoted scalar", "while scanning a double-quoted scalar"):
        quote = ctx_text[ctx_col - 1: ctx_col] or '"'
        if "end of stream" in problem or "document separator" in problem:
            return (f"the quoted value that starts at line {ctx_line}, column {ctx_col} is never closed; add the "
                    f"closing {quote} where the value ends")
        if "unknown escape character" in problem:
            return ("a backslash escape YAML does not know, in a double-quoted value; write '\\\\' for a "
                    "backslash, or use single quotes")
        return f"the quoted value that starts at line {ctx_line}, column {ctx_col} is malformed: {_words(problem)}"

    flow = re.fullmatch(r"while parsing a flow (sequence|mapping)", context)
    if flow and problem.startswith("expected ','"):
        opened, close = ("[", "]") if flow.group(1) == "sequence" else ("{", "}")
        kind = "list" if opened == "[" else "mapping"
        return (f"the {kind} opened with '{opened}' at line {ctx_line}, column {ctx_col} is not closed before "
                f"this; close it with '{close}', or separate its entries with ','")

    if context == "while scanning a simple key" and "could not find expected ':'" in problem:
        key = ctx_text[ctx_col - 1:]
        if key.startswith("-") and key[1:2] not in ("", " "):
            return (f"{_shown(key)} on line {ctx_line} is neither a key nor a list item: a list item needs a "
                    f"space after '-' ('- {key[1:].strip()}')")
        return (f"line {ctx_line} ({_shown(key)}) has no ': ' after its key; write 'key: value' (or '- item' "
                "in a list)")

    alias = re.fullmatch(r"found undefined alias '(.*)'", problem)
    if alias:
        return (f"'*{alias.group(1)}' refers to an anchor '&{alias.group(1)}' that is not defined before it; "
                "define the anchor above, or quote the value if '*' is meant literally")

    scanning = re.fullmatch(r"while scanning an? (alias|anchor)", context)
    if scanning:
        sign = "*" if scanning.group(1) == "alias" else "&"
        return (f"'{sign}' starts an {scanning.group(1)} name here; quote the value if '{sign}' is meant "
                "literally")

    if context == "while scanning a block scalar":
        return ("'|' and '>' start a block of text: only '-', '+', a digit, or a space and a comment may "
                "follow them on this line; quote the value, or put its text on the lines below, indented")

    if context == "while scanning a directive" or problem.startswith("found unknown directive"):
        return ("a line that starts with '%' is a YAML directive (%YAML, %TAG); quote a value that starts with "
                "'%', or indent it under its key")

    if context in ("while scanning a tag", "while parsing a tag"):
        return ("'!' starts a YAML tag (!name) here, and this one is malformed; quote the value if '!' is meant "
                "literally")

    if problem.startswith("expected '<document start>', but found"):
        return ("more content after the document ended (after a '...' line, or after a complete top-level "
                "value); remove it, or make the file one mapping")

    node = re.fullmatch(r"expected the node content, but found (.*)", problem)
    if node:
        return f"a value cannot start with {_words(node.group(1))}; quote the value"

    return _words(problem or context or "syntax error")
