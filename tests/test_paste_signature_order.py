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
