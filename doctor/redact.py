"""Redaction: removes personal data and secrets from facts before checks run and reports are shared.

Every string in the facts is rewritten, whatever field holds it: secrets inside values are masked
(tokens such as ``ghp_...``, ``hf_...``, ``sk-...``, credentials in URLs), environment variables with
secret-looking names read "set", GPU and MIG UUIDs become stable placeholders (``GPU-<uuid-1>``; the
same UUID, or a prefix of it, always maps to the same placeholder, so checks that match
CUDA_VISIBLE_DEVICES against the GPUs still judge correctly), serial numbers are dropped, home
directories become ``~``, and user and host names become ``<user>`` and ``<host>``. The hosts of a distributed
run's ranks become ``node-1``, ``node-2``, ... (in rank order, the same host always the same name), so the rows of
different nodes stay apart. Generic account
names (root, ubuntu, ...), names shorter than three characters and names that are words of the GPU,
package or OS names in the facts are left alone outside home paths: they identify nobody, and
replacing them would garble facts the checks read.
"""

from __future__ import annotations

import dataclasses
import getpass
import os
import re
import socket
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Tuple

from gpudoctor.facts import EnvFacts, Facts
from gpudoctor.facts.distributed import RankResult
from gpudoctor.secretnames import SECRET_PARAMETER, is_secret_name

SECRET_VALUE = "set"
MASK = "<secret>"

_SECRET_PATTERNS: Tuple[Tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?<=://)[^/\s:@]+:[^/\s@]+@"), MASK + "@"),  # scheme://user:pass@host
    (re.compile(r"(?<=://)[^/\s:@]{16,}@"), MASK + "@"),  # scheme://token@host
    (re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{16,}|github_pat_[A-Za-z0-9_]{20,})"), MASK),
    (re.compile(r"\bhf_[A-Za-z0-9]{16,}"), MASK),
    (re.compile(r"\bsk-[A-Za-z0-9_-]{16,}"), MASK),
    (re.compile(r"\bglpat-[A-Za-z0-9_-]{16,}"), MASK),
    (re.compile(r"\bxox[abprs]-[A-Za-z0-9-]{10,}"), MASK),
    (re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), MASK),
    (re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), MASK),  # JWT
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{12,}"), r"\1 " + MASK),
    (SECRET_PARAMETER, r"\1=" + MASK),
)

_UUID_HEX = r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"
_UUID_LIKE = re.compile(r"\b(GPU-|MIG-)?(" + _UUID_HEX + r")\b")
_UUID_PREFIX = re.compile(r"\b(GPU-|MIG-)([0-9a-fA-F]{4,}(?:-[0-9a-fA-F]{1,12}){0,4})\b")

_NAME = r"([^/\\\s'\",:;<>]+)"
# A Windows user name may hold spaces ("Ana Maria"): taken whole when a path separator follows it.
_WIN_NAME = r"([^/\\\s'\",:;<>]+(?: [^/\\\s'\",:;<>]+)*(?=[\\/])|[^/\\\s'\",:;<>]+)"
_HOME_PATTERNS = (  # a home directory at the start of a path: replaced by ~ (the drive-letter form first)
    re.compile(r"(?i)\b[A-Z]:[\\/]+Users[\\/]+" + _WIN_NAME),
    re.compile(r"(?<![\w./~-])/home/" + _NAME),
    re.compile(r"(?<![\w./~-])/Users/" + _NAME),
)
_HOME_NAMES = (  # anywhere: the name is a user name
    re.compile(r"/home/" + _NAME),
    re.compile(r"/Users/" + _NAME),
    re.compile(r"(?i)\b[A-Z]:[\\/]+Users[\\/]+" + _WIN_NAME),
    re.compile(r"(?i)[\\/]Users[\\/]+" + _NAME),
)

GENERIC_NAMES = frozenset(
    """root user users admin administrator ubuntu debian centos fedora rocky almalinux ec2-user
    azureuser jovyan runner vagrant docker nvidia cuda torch python gpu colab default public shared
    guest test dev app build jenkins gitlab-runner localhost home linuxbrew conda miniconda anaconda
    all everyone system service work workspace data opt usr lib bin local host uuid secret set""".split()
)


@dataclass(frozen=True)
class Identity:
    """What identifies the person: home directories, user names and host names to remove."""

    homes: Tuple[str, ...] = ()
    users: Tuple[str, ...] = ()
    hosts: Tuple[str, ...] = ()


def local_identity() -> Identity:
    """The home directory, user name and host name of the machine gpudoctor runs on."""
    homes: List[str] = []
    users: List[str] = []
    hosts: List[str] = []
    home = os.path.expanduser("~")
    if home and home != "~":
        homes.append(home)
    try:
        users.append(getpass.getuser())
    except Exception:  # noqa: BLE001 - no user name (a container without /etc/passwd entry)
        pass
    for var in ("USER", "USERNAME", "LOGNAME"):
        if os.environ.get(var):
            users.append(os.environ[var])
    try:
        hosts.append(socket.gethostname())
    except OSError:
        pass
    return Identity(tuple(homes), tuple(users), tuple(hosts))


def _strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for f in dataclasses.fields(value):
            yield from _strings(getattr(value, f.name))
    elif isinstance(value, tuple):
        for item in value:
            yield from _strings(item)


def _product_words(facts: Facts) -> frozenset[str]:
    """Words of GPU names, package names and the OS: a user called "tesla" must not rename the GPU."""
    texts = [g.name or "" for g in facts.gpus] + [d.name or "" for d in facts.torch.devices]
    texts += [p.name for p in facts.packages]
    texts += [facts.platform.distro or "", facts.platform.system or "", facts.platform.machine or ""]
    return frozenset(w.lower() for text in texts for w in re.findall(r"[A-Za-z0-9]+", text))


def _word(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![A-Za-z0-9])" + re.escape(name) + r"(?![A-Za-z0-9])", re.I)


def _usable(name: str) -> bool:
    return len(name) >= 3 and name.lower() not in GENERIC_NAMES


class _Redactor:
    """The string rewriting for one set of facts; keeps the UUID placeholders consistent."""

    def __init__(self, facts: Facts, identity: Identity) -> None:
        self.uuids: Dict[str, str] = {}
        users = list(identity.users)
        for text in _strings(facts):
            for pattern in _HOME_NAMES:
                users += [m.group(1) for m in pattern.finditer(text)]
            for match in _UUID_LIKE.finditer(text):
                self._placeholder(match.group(2))
        homes = sorted({h.rstrip("/\\") for h in identity.homes if len(h.rstrip("/\\")) > 1}, key=len, reverse=True)
        self.homes = [re.compile(re.escape(h) + r"(?=[/\\]|$|[^A-Za-z0-9_.-])", re.I) for h in homes]
        hosts: List[str] = []
        for host in identity.hosts:
            hosts += [host, host.split(".", 1)[0]]
        taken = _product_words(facts)
        users = [u for u in users if _usable(u) and u.lower() not in taken]
        self.users = [_word(u) for u in sorted(set(users), key=len, reverse=True)]
        hosts = [h for h in hosts if _usable(h) and h.lower() not in taken]
        self.hosts = [_word(h) for h in sorted(set(hosts), key=len, reverse=True)]
        self.nodes = _rank_hosts(facts)
        spellings = {h: n for full, n in self.nodes.items() for h in (full, full.split(".", 1)[0])}
        usable = sorted((h for h in spellings if _usable(h) and h not in taken), key=len, reverse=True)
        self.node_words = [(_word(h), spellings[h]) for h in usable]

    def host(self, value: str) -> str:
        """A rank's host field: its node name, whatever the host is called."""
        return self.nodes.get(value.lower()) or self.text(value)

    def _placeholder(self, hex_uuid: str) -> str:
        key = hex_uuid.lower()
        if key not in self.uuids:
            self.uuids[key] = f"<uuid-{len(self.uuids) + 1}>"
        return self.uuids[key]

    def _prefix(self, match: re.Match[str]) -> str:
        prefix, hex_part = match.group(1), match.group(2).lower()
        if hex_part.startswith("<"):
            return match.group(0)
        for key, placeholder in self.uuids.items():
            if key.startswith(hex_part):
                return prefix + placeholder
        return prefix + self._placeholder(hex_part)

    def text(self, value: str) -> str:
        for pattern, replacement in _SECRET_PATTERNS:
            value = pattern.sub(replacement, value)
        value = _UUID_LIKE.sub(lambda m: (m.group(1) or "") + self._placeholder(m.group(2)), value)
        value = _UUID_PREFIX.sub(self._prefix, value)
        for home in self.homes:
            value = home.sub("~", value)
        for pattern in _HOME_PATTERNS:
            value = pattern.sub("~", value)
        for user in self.users:
            value = user.sub("<user>", value)
        for word, node in self.node_words:
            value = word.sub(node, value)
        for host in self.hosts:
            value = host.sub("<host>", value)
        return value


def _rank_hosts(facts: Facts) -> Dict[str, str]:
    """Every rank's host (lower case, full and short spellings) -> node-N, numbered in rank order."""
    dist = facts.verify.distributed if facts.verify is not None else None
    names: Dict[str, str] = {}
    short: Dict[str, str] = {}
    for r in sorted(dist.ranks if dist is not None else (), key=lambda r: r.rank):
        if not r.host:
            continue
        full = r.host.lower()
        key = full.split(".", 1)[0]
        if key not in short:
            short[key] = f"node-{len(short) + 1}"
        names[full] = short[key]
    return names


def _walk(value: Any, text: Callable[[str], str], host: Optional[Callable[[str], str]] = None) -> Any:
    if isinstance(value, str):
        return text(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes: Dict[str, Any] = {}
        for f in dataclasses.fields(value):
            old = getattr(value, f.name)
            new: Any
            if f.name == "serial":
                new = None
            elif isinstance(value, EnvFacts) and f.name == "variables":
                new = tuple((name, SECRET_VALUE if is_secret_name(name) else text(val)) for name, val in old)
            elif isinstance(value, RankResult) and f.name == "host" and isinstance(old, str) and host is not None:
                new = host(old)
            else:
                new = _walk(old, text, host)
            if new is not old:
                changes[f.name] = new
        return dataclasses.replace(value, **changes) if changes else value
    if isinstance(value, tuple):
        items = tuple(_walk(item, text, host) for item in value)
        return items if any(a is not b for a, b in zip(items, value)) else value
    return value


def redact(facts: Facts, identity: Optional[Identity] = None) -> Facts:
    """The facts with personal data and secrets removed, and ``meta.redacted`` set."""
    who = local_identity() if identity is None else identity
    redactor = _Redactor(facts, who)
    changes = {f.name: _walk(getattr(facts, f.name), redactor.text, redactor.host)
               for f in dataclasses.fields(facts) if f.name != "meta"}
    return dataclasses.replace(facts, meta=dataclasses.replace(facts.meta, redacted=True), **changes)
