"""Helpers the built-in checks share: no check lives here.

- ``words``: a fix command from its words, for the diagnosed machine's shell; the target interpreter.
- ``commands``: pip commands (through ``gpudoctor.recommend.render``), environment variables, installed versions.
- ``install``: the recommender's install plan for the diagnosed machine, as a ``Fix``.

Values from facts are hostile, and every one reaches a command through ``gpudoctor.shell``, quoted for the
diagnosed machine's shell (PowerShell on Windows, POSIX sh elsewhere). A value that no quoting makes safe
(control characters) never reaches a command as it is. Where the value is what the command sets (a variable's
value, a device list: ``words.export``, ``words.command``), the command is left out and the fix says what to do
in words. Where the value only names something the command acts on (an interpreter path, a requirement: the
helpers in ``commands``), its control characters show as ``?``: the command then names something that does not
exist, visibly, and cannot run anything else. An interpreter path that is not a plausible path gives ``python``.
"""
