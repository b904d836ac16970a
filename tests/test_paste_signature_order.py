"""Where one line matches several known messages, the catalogue's order decides which one names it: the more
specific message must come first. Each line here matches at least two signatures, so reordering the catalogue
breaks the test instead of silently renaming the cause."""

from __future__ import annotations

from typing import List

import pytest

from gpudoctor.parsers.paste import read_paste
from gpudoctor.parsers.paste.signatures import CATALOGUE, Sig

CASES = [
    # cuDNN is what the program loads, but the library that is missing is the driver's libcuda
    ("Could not load library libcudnn_cnn_infer.so.8. Error: libcuda.so: cannot open shared object file: "
     "No such file or directory", Sig.LIBCUDA_MISSING),
    # the DLL failed to load because the paging file is too small, not because it is missing
    ('OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading '
     '"C:\\ai\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.',
     Sig.PAGING_FILE),
    # a flash-attn binary with an undefined symbol is flash-attn's ABI, not any extension's
    ("ImportError: /venv/lib/python3.10/site-packages/flash_attn_2_cuda.cpython-310-x86_64-linux-gnu.so: "
     "undefined symbol: _ZN3c104cuda9SetDeviceEi", Sig.FLASH_ATTN_ABI),
    # libcudnn's own "cannot open shared object file" is cuDNN, not any CUDA library
    ("OSError: libcudnn.so.8: cannot open shared object file: No such file or directory", Sig.CUDNN_MISSING),
]


def _matching(line: str) -> List[Sig]:
    return [s.sig for s in CATALOGUE if s.literal in line.lower() and s.pattern.search(line)]


@pytest.mark.parametrize("line, first", CASES)
def test_the_more_specific_message_names_a_line_that_several_match(line: str, first: Sig) -> None:
    matching = _matching(line)
    assert len(set(matching)) >= 2, f"only {matching} match: the case no longer tests the order"
    assert matching[0] is first
    assert read_paste(line + "\n").signatures()[:1] == (first,)


def _alternatives(pattern: str) -> list:
    """The top-level alternatives of a regular expression."""
    out, depth, current, i = [], 0, "", 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            current += pattern[i:i + 2]
            i += 2
            continue
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "|" and depth == 0:
            out.append(current)
            current = ""
        else:
            current += char
        i += 1
    return out + [current]


def test_every_alternative_of_a_signature_holds_its_literal() -> None:
    """The literal is a pre-test on the line: an alternative without it could never match."""
    import re

    from gpudoctor.parsers.paste.catalogue import CATALOGUE
    missing = []
    for signature in CATALOGUE:
        for alternative in _alternatives(signature.pattern.pattern):
            plain = re.sub(r"\\s[+*?]?|\s\?", " ", alternative)
            plain = re.sub(r"\\(.)", r"\1", plain).lower()
            if signature.literal not in plain:
                missing.append((signature.sig.value, signature.literal, alternative[:60]))
    assert missing == []
