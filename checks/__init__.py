"""Built-in checks: pure functions from Facts to findings, one module per concern.

The catalogue is ``gpudoctor.checks.builtin.CHECKS``, which the ``builtin`` entry point of the
``gpudoctor.checks`` group names; this package itself imports nothing, so a check module importing a
sibling never imports the catalogue.
"""
