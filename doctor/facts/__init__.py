"""The facts model: everything the probes learned about a machine, as frozen dataclasses and versioned JSON."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Optional, Tuple

from packaging.utils import canonicalize_name

from gpudoctor.facts.codec import FactsError as FactsError
from gpudoctor.facts.codec import Vocabulary, from_plain, to_plain
from gpudoctor.facts.machine import DriverFacts as DriverFacts
from gpudoctor.facts.machine import DriverSource as DriverSource
from gpudoctor.facts.machine import FabricManager as FabricManager
from gpudoctor.facts.machine import Gpu as Gpu
from gpudoctor.facts.machine import GpuProcess as GpuProcess
from gpudoctor.facts.machine import NvmlError as NvmlError
from gpudoctor.facts.machine import PlatformFacts as PlatformFacts
from gpudoctor.facts.software import CompanionFacts as CompanionFacts
from gpudoctor.facts.software import Distribution as Distribution
from gpudoctor.facts.software import EnvFacts as EnvFacts
from gpudoctor.facts.software import LibraryFacts as LibraryFacts
from gpudoctor.facts.software import ToolkitFacts as ToolkitFacts
from gpudoctor.facts.software import TorchDevice as TorchDevice
from gpudoctor.facts.software import TorchFacts as TorchFacts
from gpudoctor.textsafe import json_text
from gpudoctor.facts.verify import VerifyFacts

# why collect_env printed "Could not collect" for the driver or the GPUs (a probe error's reason ends with it)
SMI_UNREAD = "nvidia-smi missing or failing, or no NVIDIA GPU"

SCHEMA_VERSION = 1


class Source(Vocabulary):
    """What the facts were read from: the value of ``Meta.source``."""

    LIVE = "live"  # probed on this machine
    FACTS = "facts"  # a facts file
    REPORT = "report"  # a JSON report (its facts)
    MARKDOWN = "markdown"  # a markdown report (its embedded facts)
    COLLECT_ENV = "collect_env"  # PyTorch's collect_env output
    PASTE = "paste"  # an issue body with no collect_env report in it


@dataclass(frozen=True)
class Meta:
    """Where these facts came from."""

    schema: int = SCHEMA_VERSION
    gpudoctor_version: str = ""
    created: str = ""  # ISO 8601, UTC
    source: str = Source.LIVE.value  # a Source value
    redacted: bool = False


@dataclass(frozen=True)
class Facts:
    """Everything known about one machine and one Python environment."""

    meta: Meta = field(default_factory=Meta)
    platform: PlatformFacts = field(default_factory=PlatformFacts)
    driver: DriverFacts = field(default_factory=DriverFacts)
    gpus: Tuple[Gpu, ...] = ()
    torch: TorchFacts = field(default_factory=TorchFacts)
    torchvision: CompanionFacts = field(default_factory=CompanionFacts)
    torchaudio: CompanionFacts = field(default_factory=CompanionFacts)
    packages: Tuple[Distribution, ...] = ()
    libraries: LibraryFacts = field(default_factory=LibraryFacts)
    toolkit: ToolkitFacts = field(default_factory=ToolkitFacts)
    env: EnvFacts = field(default_factory=EnvFacts)
    verify: Optional[VerifyFacts] = None
    extra: Tuple[Tuple[str, str], ...] = ()  # free-form (key, value) notes from parsers and probes
    probe_errors: Tuple[Tuple[str, str], ...] = ()  # (section, reason) for what could not be collected
    inferred: Tuple[str, ...] = ()  # fact paths whose values were inferred, not observed

    def probe_error(self, section: str) -> Optional[str]:
        for key, reason in self.probe_errors:
            if key == section:
                return reason
        return None

    def is_inferred(self, path: str) -> bool:
        return any(path == item or path.startswith(item + ".") for item in self.inferred)

    def package(self, name: str) -> Optional[Distribution]:
        wanted = canonicalize_name(name)
        for dist in self.packages:
            if canonicalize_name(dist.name) == wanted:
                return dist
        return None

    def to_dict(self) -> dict[str, Any]:
        plain: dict[str, Any] = to_plain(self)
        return plain

    def to_json(self, indent: Optional[int] = 2) -> str:
        return json_text(json.dumps(self.to_dict(), indent=indent, sort_keys=False, ensure_ascii=False))

    @classmethod
    def from_dict(cls, data: Any) -> Facts:
        if not isinstance(data, dict):
            raise FactsError("facts must be a JSON object")
        meta = data.get("meta")
        schema = meta.get("schema", 1) if isinstance(meta, dict) else 1
        if not isinstance(schema, int) or isinstance(schema, bool):
            raise FactsError(f"facts schema must be an integer, got {schema!r}")
        if schema > SCHEMA_VERSION:
            raise FactsError(
                f"facts schema {schema} is newer than this gpudoctor understands ({SCHEMA_VERSION}); "
                "upgrade gpudoctor to read it"
            )
        try:
            facts: Facts = from_plain(cls, data, "facts")
            return facts
        except FactsError:
            raise
        except (TypeError, ValueError) as exc:  # pragma: no cover - defensive
            raise FactsError(f"facts do not match the schema: {exc}") from None

    @classmethod
    def from_json(cls, text: str) -> Facts:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise FactsError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        return cls.from_dict(data)
