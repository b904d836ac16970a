"""Entry of the distributed worker run by path (``torchrun .../dist_entry.py``), for interpreters where gpudoctor itself
is not importable: loads the modules beside it as a package of their own through worker.py, and runs ``distributed``."""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys


def main() -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("_gpudoctor_worker_entry", os.path.join(here, "worker.py"))
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load worker.py from {here}")
    worker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(worker)
    worker.load_package()
    return int(importlib.import_module(worker.PACKAGE + ".distributed").main())


if __name__ == "__main__":
    sys.exit(main())
