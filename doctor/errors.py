"""The one base class of errors that mean "bad input or options": printed as one line, exit code 2."""

from __future__ import annotations

EXIT_USAGE = 2


class UserError(Exception):
    """A problem with what the user asked for or gave; the command line prints it as one line and exits 2.

    Subclasses that were ``ValueError`` before keep that base too, so callers catching it still do.
    """

    exit_code = EXIT_USAGE
