"""An argparse ``Namespace(...)`` a training script prints at start: its ``cuda`` flag is what the script decided.

Research scripts commonly set ``args.cuda = not args.no_cuda and torch.cuda.is_available()``: ``cuda=False`` with
``no_cuda=False`` (or no such option) says torch found CUDA unavailable; ``no_cuda=True`` (or ``cpu=True``,
``device='cpu'``) says the user asked for the CPU.
"""

from __future__ import annotations

import re
from typing import Iterator

from gpudoctor.parsers.paste.observe import Observation, observe
from gpudoctor.parsers.paste.segments import Segment

_NAMESPACE = re.compile(r"\bNamespace\((.*)\)")
_FLAG = re.compile(r"(?:^|[\s,(])\**(cuda|use_cuda|no_cuda|cpu|device)\**\s*=\s*\**\s*(True|False|'[^']*'|\"[^\"]*\")")


def namespaces(segment: Segment) -> Iterator[Observation]:
    """A printed Namespace whose CUDA flag is off: unavailable, or asked off by the user."""
    for line in segment.lines:
        text = line.text
        if "Namespace(" not in text:
            continue
        m = _NAMESPACE.search(text)
        if not m:
            continue
        flags = {name: value.strip("'\"") for name, value in _FLAG.findall(m.group(1))}
        asked_cpu = flags.get("no_cuda") == "True" or flags.get("cpu") == "True" or flags.get("device") == "cpu"
        off = flags.get("cuda", flags.get("use_cuda")) == "False"
        if asked_cpu:
            setting = next(f"{k}={v}" for k, v in flags.items() if (k, v) in (("no_cuda", "True"), ("cpu", "True"),
                                                                               ("device", "cpu")))
            yield observe("framework_cpu", f"{setting} (the script's options)", segment, line, "script options")
        elif off:
            yield observe("torch.is_available", False, segment, line, "script options")
