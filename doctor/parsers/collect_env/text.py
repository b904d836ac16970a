"""Reading collect_env text as pasted: markup removed, fields found by label, reports and sections split."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple

# (key, labels); a label matches case-insensitively at the start of a line, before a colon.
FIELDS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("torch_version", ("PyTorch version",)),
    ("debug", ("Is debug build",)),
    ("cuda_build", ("CUDA used to build PyTorch",)),
    ("rocm_build", ("ROCM used to build PyTorch",)),
    ("os", ("OS",)),
    ("gcc", ("GCC version",)),
    ("clang", ("Clang version",)),
    ("cmake", ("CMake version",)),
    ("libc", ("Libc version",)),
    ("python_version", ("Python version",)),
    ("python_platform", ("Python platform",)),
    ("cuda_available", ("Is CUDA available",)),
    ("cuda_runtime", ("CUDA runtime version",)),
    ("cuda_module_loading", ("CUDA_MODULE_LOADING set to",)),
    ("gpus", ("GPU models and configuration",)),
    ("driver", ("Nvidia driver version",)),
    ("cudnn", ("cuDNN version",)),
    ("xpu_available", ("Is XPU available",)),
    ("xpu_build", ("XPU used to build PyTorch",)),
    ("intel_driver", ("Intel GPU driver version",)),
    ("intel_onboard", ("Intel GPU models onboard",)),
    ("intel_detected", ("Intel GPU models detected",)),
    ("hip_runtime", ("HIP runtime version",)),
    ("miopen", ("MIOpen runtime version",)),
    ("xnnpack", ("Is XNNPACK available",)),
    ("alloc_conf", ("Caching allocator config",)),
    ("cpu", ("CPU",)),
    ("libraries", ("Versions of relevant libraries", "Version of relevant libraries")),
    # PyTorch's issue template, filled in by hand instead of (or besides) collect_env
    ("tpl_torch_version", ("PyTorch Version (e.g., 1.0)", "PyTorch Version (e.g. 1.0)")),
    ("tpl_os", ("OS (e.g., Linux)", "OS (e.g. Linux)")),
    ("tpl_install", ("How you installed PyTorch (`conda`, `pip`, source)", "How you installed PyTorch")),
    ("tpl_cuda", ("CUDA/cuDNN version",)),
)

# The order in which collect_env prints its sections; used to say where a paste was cut off.
ORDER = tuple(key for key, _ in FIELDS if not key.startswith("tpl_"))
# Fields whose value may continue on the following lines.
MULTILINE = frozenset({"gpus", "cudnn", "intel_driver", "intel_onboard", "intel_detected", "xpu_available"})
# Labels short enough that a colon is required to recognise them.
_SHORT = frozenset({"os", "cpu", "libraries"})
_TEMPLATE_KEYS = frozenset(key for key, _ in FIELDS if key.startswith("tpl_"))

_LABEL_KEY: Dict[str, str] = {
    re.sub(r"\s+", " ", label.replace("`", "")).lower(): key for key, labels in FIELDS for label in labels
}
_ALTERNATION = "|".join(
    r"\s+".join(re.escape(word) for word in label.split(" "))
    for label in sorted(_LABEL_KEY, key=lambda item: -len(item))
)
_LINE_RE = re.compile(r"^\s*(?:[-*+\u2022]\s+)?(" + _ALTERNATION + r")(?:\s*:\s*(.*)|\s+(\S.*))?$", re.I)
_COLLAPSED_RE = re.compile(
    r"(?<=\s)(?:"
    + "|".join(
        r"\s+".join(re.escape(word) for word in label.split(" "))
        for label, key in sorted(_LABEL_KEY.items(), key=lambda item: -len(item[0]))
        if key not in ("os", "cpu", "libraries") and not key.startswith("tpl_")
    )
    + r")\s*:",
    re.I,
)
_HEADER = "collecting environment information"
_ZERO_WIDTH = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff"), None)
_BULLET_FIELD = re.compile(r"^\s*[-*+\u2022]\s+[^:]{1,80}:")
_GPU_LINE = re.compile(r"^\s*(GPU\s*\d+\s*:|MIG\s+\S+\s+Device\s+\d+)", re.I)
_CUDNN_LINE = re.compile(r"(cudnn|^/|^[A-Za-z]:\\)", re.I)


@dataclass
class RawReport:
    """One collect_env report as label -> lines, plus the text around it."""

    fields: Dict[str, List[str]] = field(default_factory=dict)
    order: List[str] = field(default_factory=list)  # field keys in the order they appeared
    cpu: List[str] = field(default_factory=list)
    libraries: List[str] = field(default_factory=list)
    header: bool = False  # "Collecting environment information..." was seen
    last_section: Optional[str] = None  # the field or section in which the text ended

    def value(self, key: str) -> Optional[str]:
        """The first line of a field's value, or None when the field is absent."""
        lines = self.fields.get(key)
        if lines is None:
            return None
        return lines[0] if lines else ""

    def collect_env_fields(self) -> List[str]:
        return [key for key in self.order if key not in _TEMPLATE_KEYS]


_QUOTE = re.compile(r"^(\s*>)+ ?")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HTML = re.compile(r"</?(details|summary|pre|code)>", re.I)
_UNDERSCORES = re.compile(r"^\s*__|__(?=\s*:)")


def normalise(text: str) -> List[str]:
    """Lines with quoting, bold, code fences, HTML wrappers and odd colons and spaces removed."""
    text = text.translate(_ZERO_WIDTH).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\uff1a", ":").replace("\u00a0", " ").replace("\u3000", " ").replace("\t", " ")
    text = re.sub(r"<br\s*/?>", "\n", text, flags=re.I)
    lines: List[str] = []
    for line in text.split("\n"):
        if ">" in line[:12]:
            line = _QUOTE.sub("", line)
        if "`" in line or "~" in line:
            if _FENCE.match(line):
                continue
            line = line.replace("`", "")
        if "<" in line:
            line = _HTML.sub("", line)
        if "*" in line:
            line = line.replace("**", "")
        if "__" in line:
            line = _UNDERSCORES.sub("", line)
        line = line.rstrip()
        lines.extend(_split_collapsed(line) if line.count(":") > 1 else (line,))
    return lines


def _split_collapsed(line: str) -> List[str]:
    """Break a line that holds several 'Label: value' fields (a paste whose newlines were lost)."""
    cuts = [m.start() for m in _COLLAPSED_RE.finditer(line) if line[: m.start()].strip(" -*+\u2022>")]
    if not cuts:
        return [line]
    parts = []
    start = 0
    for cut in cuts:
        parts.append(line[start:cut].rstrip())
        start = cut
    parts.append(line[start:])
    return [part for part in parts if part.strip()] or [""]


_FIRST_WORDS = frozenset(label.split(" ")[0] for label in _LABEL_KEY)


def match_label(line: str) -> Optional[Tuple[str, str]]:
    """(key, value) when the line starts with a known field label."""
    words = line.lstrip(" -*+\u2022").split(None, 1)
    if not words or words[0].lower().rstrip(":") not in _FIRST_WORDS:
        return None
    m = _LINE_RE.match(line)
    if m is None:
        return None
    key = _LABEL_KEY[re.sub(r"\s+", " ", m.group(1)).lower()]
    if m.group(2) is not None:
        return key, m.group(2).strip()
    value = m.group(3)
    if value is None:
        return (key, "") if key in ("cpu", "libraries") else None
    if key in _SHORT or key in _TEMPLATE_KEYS or re.match(r"[a-z]", value[:1]):
        return None
    return key, value.strip()


def is_header(line: str) -> bool:
    return "ollecting" in line and line.strip().lower().startswith(_HEADER)


def split_reports(lines: List[str]) -> Tuple[List[str], List[RawReport]]:
    """The lines before the first report, and every report found, in order."""
    reports: List[RawReport] = []
    preamble: List[str] = []
    current: Optional[RawReport] = None
    key: Optional[str] = None  # the field now being read
    for line in lines:
        if is_header(line):
            if current is None or current.order:
                current = RawReport(header=True)
                reports.append(current)
            else:
                current.header = True
            key = None
            continue
        found = None if key == "cpu" and not _ends_cpu(line) else match_label(line)
        if found is not None:
            new_key, value = found
            if current is None or (new_key == "torch_version" and "torch_version" in current.fields):
                current = RawReport()
                reports.append(current)
            if new_key in current.fields and new_key not in ("cpu", "libraries"):
                key = None
                continue
            current.fields[new_key] = [value] if value else []
            current.order.append(new_key)
            current.last_section = new_key
            key = new_key
            continue
        if current is None:
            preamble.append(line)
            continue
        if not line.strip():
            if key in MULTILINE and not current.fields.get(key):
                continue
            if key not in ("cpu", "libraries"):
                key = None
            continue
        if key not in ("cpu", "libraries") and _BULLET_FIELD.match(line):
            key = None
            continue
        if key == "cpu":
            current.cpu.append(line.strip())
        elif key == "libraries":
            current.libraries.append(line.strip())
        elif key is not None:
            current.fields[key].append(line.strip())
        elif current.last_section == "gpus" and _GPU_LINE.match(line):
            current.fields["gpus"].append(line.strip())
        elif current.last_section == "cudnn" and _CUDNN_LINE.search(line.strip()):
            current.fields["cudnn"].append(line.strip())
        elif re.match(r"^\s*\[(pip\d?|conda)\]", line):
            current.libraries.append(line.strip())
    return preamble, reports


def _ends_cpu(line: str) -> bool:
    found = match_label(line)
    return found is not None and found[0] in ("libraries", "torch_version")


def join_wrapped(lines: List[str], sep: str = " ") -> str:
    """A single-valued field whose value the paste wrapped onto several lines."""
    return sep.join(part.strip() for part in lines if part.strip())


UNKNOWN = frozenset({"", "could not collect", "n/a", "na", "none", "no cuda", "unknown", "not available"})
_PLACEHOLDERS = ("could not collect", "n/a", "no cuda", "not available", "unknown")


def known(value: Optional[str]) -> Optional[str]:
    """The value, or None for collect_env's placeholders ('Could not collect', 'N/A', 'No CUDA', 'None')."""
    if value is None:
        return None
    value = value.strip()
    low = value.lower().rstrip(".")
    if low in UNKNOWN or (len(low) >= 2 and any(word.startswith(low) for word in _PLACEHOLDERS)):
        return None  # a placeholder, or one cut off part-way ("N/", "Could not col")
    return value


def yes_no(value: Optional[str]) -> Optional[bool]:
    if value is None:
        return None
    word = value.strip().lower().rstrip(".")
    if word in ("yes", "true"):
        return True
    if word in ("no", "false"):
        return False
    return None
