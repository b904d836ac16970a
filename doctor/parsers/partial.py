"""Empty facts for a paste that speaks of the GPU stack but holds nothing readable: the diagnosis then asks for
collect_env or ``gpudoctor facts`` instead of refusing the paste."""

from __future__ import annotations

import itertools
import re
from typing import Optional

from gpudoctor.facts import Facts, Meta, Source

NOTE = "paste.partial"
# words that put a paste on the GPU stack
_STACK_WORDS = re.compile(r"\b(?:gpus?|cuda|cudnn|nvidia(?:-smi)?|nvcc|torch|pytorch|geforce|rtx|gtx|tesla|"
                          r"graphics cards?|vram)\b|显卡|显存|видеокарт|"
                          r"\b(?:only|just|still|always)\s+(?:uses?|using|runs?|running)\s+(?:on\s+)?(?:the\s+)?cpu\b|"
                          r"(?:只|都|全程|一直)\s*(?:在)?\s*(?:用|使用)\s*CPU", re.I)  # the GPU unused, in so many words


def partial_facts(text: str) -> Optional[Facts]:
    """Facts holding only a note naming the GPU-stack words found; None when the text has none."""
    words = [m.group().lower() for m in itertools.islice(_STACK_WORDS.finditer(text), 50)]
    if not words:
        return None
    from gpudoctor import __version__

    named = ", ".join(dict.fromkeys(words))[:120]
    note = (NOTE, f"no output, error message or version was recognised; the paste speaks of {named}")
    return Facts(meta=Meta(gpudoctor_version=__version__, source=Source.PASTE.value), extra=(note,))
