"""Which environment variable names hold secrets: tokens, keys, passwords, credentials, sessions, signatures.

Names are split into words at ``_``, ``-``, ``.`` and digits; a name is secret when one word is a secret
word (``PASS``, ``KEY``, ``CREDS``, ...) or when its letters hold a long secret word (``PGPASSWORD``,
``APIKEY``, ``CONNECTIONSTRING``). ``PWD`` and ``OLDPWD`` alone are the working directory.
"""

from __future__ import annotations

import re

__all__ = ["SECRET_PARAMETER", "is_secret_name"]

_WORDS = frozenset(
    """TOKEN TOKENS SECRET SECRETS PASS PASSWORD PASSWORDS PASSWD PASSPHRASE PWD KEY KEYS APIKEY AUTH
    CRED CREDS CREDENTIAL CREDENTIALS COOKIE COOKIES SESSION PRIVATE SIGNATURE SIG SAS DSN JWT OTP
    BEARER""".split()
)
_INSIDE = re.compile(
    "PASSWORD|PASSWD|PASSPHRASE|SECRET|TOKEN|CREDENTIAL|APIKEY|ACCESSKEY|PRIVATEKEY|SIGNINGKEY|"
    "CONNECTIONSTRING|SIGNATURE|COOKIE"
)
_NOT_SECRET = frozenset({"PWD", "OLDPWD"})
# A secret in a value: key=..., password=..., sig=... (query strings, connection strings, command lines).
SECRET_PARAMETER = re.compile(
    r"(?i)\b((?:api[_-]?|x-amz-)?(?:token|secret|password|passwd|pwd|pass|key|accountkey|sharedaccesskey|auth|"
    r"credentials?|creds|signature|sig|session|cookie)[A-Za-z_-]*)=([^&\s;,]+)"
)


def is_secret_name(name: str) -> bool:
    upper = name.upper()
    if upper in _NOT_SECRET:
        return False
    words = [w for w in re.split(r"[^A-Z]+", upper) if w]
    return any(w in _WORDS for w in words) or bool(_INSIDE.search("".join(words)))
