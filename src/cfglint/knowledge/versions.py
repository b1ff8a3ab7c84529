"""Engine release numbers: ordering, release lines and the release ranges the compiled data uses.

Versions are the engines' PyPI versions (PEP 440 subset): ``0.6.6.post1``, ``0.5.0rc2``,
``1.3.0rc15.post1``, ``0.10.1.1``. A range names releases of one ordered list (the releases the
data was read from, oldest first): ``0.6.2..0.17.1`` is every listed release from 0.6.2 to 0.17.1,
``0.9.2`` one release, and ``0.6.2..0.8.4, 0.10.0..0.33.0`` a union (a gap between).
"""

from __future__ import annotations

import re
from functools import lru_cache

_VERSION = r"v?(?P<num>\d+(?:\.\d+)*)(?:(?P<pre>a|b|rc)(?P<pre_n>\d+))?(?:\.?post(?P<post>\d+))?(?:\.?dev(?P<dev>\d+))?$"
# a version written inside other text: an image tag (v0.10.0, 0.5.17-cu126), a pin (vllm==0.8.4)
_FIND = r"(?<![\w.])v?(\d+\.\d+(?:\.\d+){0,2}(?:rc\d+)?(?:\.post\d+)?)(?![\w]|\.\d)"
# a part of a release number longer than this is no release (and more than 4300 digits Python will
# not convert): v0.9.1rc<5000 digits> names none
MAX_PART_DIGITS = 18
_LEADING = r"\s*v?(\d+\.\d+(?:\.\d+){0,2}(?:rc\d+)?(?:\.post\d+)?)(?![\w.])"


@lru_cache(maxsize=None)
def _re(pattern: str) -> re.Pattern:
    """Patterns compiled on first use (a run whose launches name no release compiles none)."""
    return re.compile(pattern, re.I if pattern is _VERSION else 0)


@lru_cache(maxsize=4096)
def parse(version: str) -> tuple | None:
    """A sort key for ``version`` (``0.5.0rc2`` < ``0.5.0`` < ``0.5.0.post1`` < ``0.5.1``), or
    None when it is not a release number. A development build sorts before its release."""
    m = _re(_VERSION).match(version.strip()) if isinstance(version, str) else None
    if m is None or any(len(n or "") > MAX_PART_DIGITS for n in (*m.group("num").split("."), *m.group("pre_n", "post", "dev"))):
        return None
    nums = tuple(int(n) for n in m.group("num").split("."))
    nums = nums + (0,) * (4 - len(nums)) if len(nums) < 4 else nums
    if m.group("dev") is not None and m.group("pre") is None:
        pre = (-2, int(m.group("dev")))
    elif m.group("pre"):
        pre = ({"a": -1.5, "b": -1.2, "rc": -1}[m.group("pre").lower()], int(m.group("pre_n")))
    else:
        pre = (0, 0)
    post = int(m.group("post")) if m.group("post") is not None else -1
    return nums, pre, post


def find(text: str) -> str | None:
    """The first release number written in ``text`` (an image tag, a pip pin), without ``v``."""
    m = _re(_FIND).search(text or "")
    return m.group(1) if m else None


def leading(text: str) -> str | None:
    """The release number a version text starts with (``0.5.11 DSv4`` -> ``0.5.11``, ``v0.10.0``
    -> ``0.10.0``); None when it starts otherwise (``ROCm 7.2 DSv4 dev``, ``92d37d84``)."""
    m = _re(_LEADING).match(text or "")
    return m.group(1) if m else None


def line(version: str, parts: int = 2) -> str:
    """The release line of ``version``: ``0.9.1`` -> ``0.9``; ``1.3.0rc15`` -> ``1.3``."""
    m = _re(_VERSION).match(version.strip())
    return ".".join(m.group("num").split(".")[:parts]) if m else version


def ordered(versions) -> list[str]:
    """``versions`` sorted oldest first; text that is no version last, as it is."""
    return sorted(versions, key=lambda v: (parse(v) is None, parse(v) or (), v))


def ranges(held: list[str], releases: list[str]) -> str:
    """``held`` (a subset of ``releases``, which is ordered) as a range text: maximal runs of
    consecutive releases, ``first..last``, joined by ``, ``."""
    mark = set(held)
    runs: list[list[str]] = []
    for r in releases:
        if r in mark:
            if runs and runs[-1][-1] == _prev(r, releases):
                runs[-1].append(r)
            else:
                runs.append([r])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}..{run[-1]}" for run in runs)


def _prev(r: str, releases: list[str]) -> str | None:
    i = releases.index(r)
    return releases[i - 1] if i else None


def expand(text: str, releases: list[str]) -> list[str]:
    """The releases a range text names, in the order of ``releases``. Raises ValueError for a
    bound that is not in ``releases`` or a range whose end comes before its start."""
    out: list[str] = []
    index = {r: i for i, r in enumerate(releases)}
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        first, _, last = part.partition("..")
        last = last or first
        if first not in index or last not in index:
            raise ValueError(f"release range {part!r}: {first if first not in index else last!r} is not a release read")
        a, b = index[first], index[last]
        if b < a:
            raise ValueError(f"release range {part!r} ends before it starts")
        out.extend(releases[a:b + 1])
    return out
