"""RED003: private IP addresses and internal host names must be published as ``<head-ip>``
(``<node-name>`` where the address is a Kubernetes node's name)."""

from __future__ import annotations

import re
from functools import lru_cache

from ..model import Finding, Span
from ..read.shell.text import inside
from . import prefilter
from .assignments import assignments
from .base import Context, rule
from .prose import text_regions


def _host(value: str) -> str:
    """The host part of an address value: ``tcp://h:1``, ``h:1/path``, ``[2001:db8::1]:5000``,
    ``2001:db8::1`` (an IPv6 literal without brackets has no port)."""
    rest = re.sub(r"^[a-z]+://", "", value).split("/")[0]
    rest = rest.rsplit("@", 1)[-1]   # user:password@host: the host (the password is RED002's)
    if rest.startswith("["):
        return rest[1:].split("]", 1)[0]
    if rest.count(":") > 1:
        return rest
    return rest.rsplit(":", 1)[0]


@lru_cache(maxsize=8)
def _networks(written: tuple) -> list:
    """The networks of rules/secrets.yaml ``addresses`` (CIDR strings), made once."""
    import ipaddress

    return [ipaddress.ip_network(n) for n in written]


_IPV4 = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,3}){3})(?![\d.])")

# a Kubernetes node label whose value names one node (nodeSelector, node affinity): an address
# there is a node's name, so its placeholder is <node-name>, not <head-ip> (the pattern also
# matches topology.kubernetes.io/hostname)
_NODE_LABEL = re.compile(r"kubernetes\.io/hostname\s*[:=]\s*[\"']?([^\s\"'#,}]+)?")


def _placeholder(line: str, nodes: set[str], address: str) -> tuple[str, str | None]:
    """(placeholder to write, fix or None) for a private address on ``line``; ``nodes``: the
    node names the file pins pods to. A node name gets ``<node-name>``; its fix is offered
    only when the file names that one node alone: replacing two nodes' names by one placeholder
    would pin both pods to one node."""
    if not _NODE_LABEL.search(line):
        return "<head-ip>", "<head-ip>"
    return "<node-name>", ("<node-name>" if nodes <= {address} else None)


@rule("RED003", "unredacted-address", "error",
      "A private IP address or internal host name where the convention is <head-ip>.",
      "Addresses inside a site's network (10.x, 172.16-31.x, 192.168.x, 100.64/10, internal host "
      "names in --dist-init-addr, --host, etcd endpoints) describe the submitter's network and "
      "mean nothing elsewhere; the published convention is <head-ip>. Loopback and 0.0.0.0 are "
      "fine, and so are the documentation ranges (RFC 5737 192.0.2.0/24, 198.51.100.0/24, "
      "203.0.113.0/24; RFC 3849 2001:db8::/32). An address that is a Kubernetes node's name "
      "(kubernetes.io/hostname in a nodeSelector or node affinity) is written <node-name>; its fix "
      "is offered only where the file names that one node (one placeholder for two nodes would "
      "pin both pods to one). Which ranges are private is the configuration "
      "key private-ranges (default: RFC 1918 and RFC 6598). In a shell file, help and usage text "
      "(echo / printf / cat <<EOF to the terminal), comments and case patterns are prose: a "
      "'--host HOST' there is not a setting (a literal private address is still reported).",
      ("rules/secrets.yaml (addresses: RFC 1918 / RFC 6598 ranges, address-taking flags)",
       "RFC 5737 and RFC 3849 (documentation address ranges)"), tags=("security",))
def check_addresses(ctx: Context):
    import ipaddress

    table = ctx.kb.secrets.get("addresses") or {}
    nets = _networks(tuple(table.get("private") or []))
    docs = _networks(tuple(table.get("documentation") or []))

    def private(ip) -> bool:
        return any(ip.version == n.version and ip in n for n in nets) and \
            not any(ip.version == n.version and ip in n for n in docs)

    names = set(table.get("flags") or []) | set(table.get("env") or [])
    public = set(table.get("public_names") or [])
    prose = text_regions(ctx)
    for tf in ctx.sub.texts:
        regions = prose.get(tf.display) or []
        text = tf.text
        # only the lines that can hold a finding: an IPv4 match (one scan of the text finds one
        # on each line that has one: a match holds no line break, and a line break is no digit
        # or '.' for the look-arounds), or an address name (an assignment's name is in its line)
        todo = prefilter.lines_holding(text, {n for n in names if n in text})
        lines = text.split("\n")
        # the nodes the file pins pods to, read once per file (and only in a file that names one)
        nodes = {m.group(1) for m in _NODE_LABEL.finditer(text) if m.group(1)} if "kubernetes.io/hostname" in text else set()
        if todo is None:
            todo = range(1, len(lines) + 1)
        else:
            todo = sorted(todo | prefilter.lines_of(text, _IPV4.finditer(text)))
        for lineno in todo:
            line = lines[lineno - 1]
            flagged: set[int] = set()
            for m in _IPV4.finditer(line):
                try:
                    ip = ipaddress.ip_address(m.group(1))
                except ValueError:
                    continue
                if private(ip):
                    flagged.add(m.start(1))
                    word, fix = _placeholder(line, nodes, m.group(1))
                    what = "names a node" if word == "<node-name>" else "is published"
                    yield Finding("RED003", f"private address {m.group(1)} {what}; write {word}",
                                  Span(tf.display, lineno, m.start(1) + 1, lineno, m.end(1) + 1), fix=fix)
            for m in assignments(line, names):
                if regions and inside(regions, lineno, m.start("name") + 1):
                    continue  # echo "  --host HOST  bind address": help text, not a setting
                value = m.group("value")
                host = _host(value)
                if not host or host in public or host.startswith(("<", "$", "{")) or m.start("value") in flagged \
                        or _IPV4.fullmatch(host) or not re.search(r"[A-Za-z]", host):
                    continue
                start = m.start("value") + value.find(host)
                try:
                    ip = ipaddress.ip_address(host)  # an IPv6 literal is an address, not a host name
                except ValueError:
                    ip = None
                if ip is not None:
                    if private(ip):
                        yield Finding("RED003", f"private address {host} is published; write <head-ip>",
                                      Span(tf.display, lineno, start + 1, lineno, start + 1 + len(host)), fix="<head-ip>")
                    continue
                yield Finding("RED003", f"internal host name '{host}' in {m.group('name')} is published; write <head-ip>",
                              Span(tf.display, lineno, start + 1, lineno, start + 1 + len(host)), fix="<head-ip>")
