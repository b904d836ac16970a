"""Entry point of the verify worker, run by path under the target interpreter: ``python worker.py --device cuda:0 ...``.

gpudoctor itself need not be importable there (it may live in pipx), so this file loads the modules beside it as
a package of their own and hands over to ``session.main``. Protocol lines go to the original stdout; anything
else that writes to stdout (print, C libraries) is sent to stderr so that it cannot corrupt the protocol.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType
from typing import Tuple

PACKAGE = "_gpudoctor_trainers"


def load_package() -> None:
    """Load the modules beside this file as the package ``PACKAGE`` (once), without letting them shadow anything."""
    if PACKAGE in sys.modules:
        return
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


def _load_session() -> Tuple[ModuleType, ModuleType]:
    load_package()
    return importlib.import_module(PACKAGE + ".session"), importlib.import_module(PACKAGE + ".protocol")


def main() -> int:
    protocol_fd = os.dup(1)
    os.dup2(2, 1)
    stream = os.fdopen(protocol_fd, "w", encoding="utf-8", buffering=1)
    sys.stdout = sys.stderr
    session, protocol = _load_session()
    emitter = protocol.Emitter(stream)
    try:
        return int(session.main(sys.argv[1:], emitter))
    except BaseException as exc:  # noqa: BLE001 - reported on the protocol, never a bare traceback
        if isinstance(exc, SystemExit):
            raise
        import traceback

        traceback.print_exc()
        text = " ".join(str(exc).split())
        emitter.emit(protocol.FATAL, kind="internal", error=f"{type(exc).__name__}: {text}"[:600])
        return 5


if __name__ == "__main__":
    sys.exit(main())
