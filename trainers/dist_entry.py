"""Entry of the distributed worker run by path (``torchrun .../dist_entry.py``), for interpreters where gpudoctor itself
is not importable: loads the modules beside it as a package of their own, like worker.py, and runs ``distributed``."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys

PACKAGE = "_gpudoctor_trainers"


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    if sys.path and os.path.abspath(sys.path[0] or ".") == here:
        sys.path.pop(0)  # the sibling modules must not shadow anything; they are loaded as a package below
    spec = importlib.util.spec_from_file_location(
        PACKAGE, os.path.join(here, "__init__.py"), submodule_search_locations=[here]
    )
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load the trainers package from {here}")
    package = importlib.util.module_from_spec(spec)
    sys.modules[PACKAGE] = package
    spec.loader.exec_module(package)
    return int(importlib.import_module(PACKAGE + ".distributed").main())


if __name__ == "__main__":
    sys.exit(main())
