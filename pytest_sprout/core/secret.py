"""A secret (the llm tier's API key) that never shows itself.

``SecretStr`` is deliberately not a ``str``: its ``repr``, ``str`` and ``format`` all print
``'***'``, so a traceback that shows function arguments (pytest's long style, ``--showlocals``,
``--junitxml``), a log line or an f-string cannot leak it. Only ``reveal()`` gives the value, and
only the HTTP transport calls it, to set the Authorization header of a request.
"""

from __future__ import annotations

import os
import re
from typing import Any

MASK = "***"
ENV_VAR = "SPROUT_LLM_API_KEY"


class SecretStr:
    __slots__ = ("_value",)

    def __init__(self, value: str | SecretStr) -> None:
        self._value = value.reveal() if isinstance(value, SecretStr) else str(value)

    def reveal(self) -> str:
        return self._value

    def __repr__(self) -> str:
        return f"SecretStr('{MASK}')"

    def __str__(self) -> str:
        return MASK

    def __format__(self, spec: str) -> str:
        return MASK

    def __bool__(self) -> bool:
        return bool(self._value)

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, SecretStr) and other._value == self._value

    def __hash__(self) -> int:
        return hash((SecretStr, self._value))

    def __reduce__(self) -> Any:  # never pickled into a cache or sent to a worker by accident
        raise TypeError("a SecretStr is not pickled")


# What a credential looks like in text an endpoint sends back (a proxy that wraps the upstream's
# error, or echoes the request, in a 200 reply): an Authorization value or an OpenAI-style key.
_TOKENS = re.compile(rb"(?i)(?<![A-Za-z0-9])(?:bearer\s+[^\s\"'\\,;]+|sk-[A-Za-z0-9_\-]{8,})")


def redact(content: bytes, secret: SecretStr | None) -> bytes:
    """``content`` (a reply's body) with the secret's text and every ``Bearer ...`` or ``sk-...``
    token replaced by ``***``, so no reply shown in a report, a message or a cache holds a key."""
    if secret:
        value = secret.reveal().encode("utf-8")
        if value and value in content:
            content = content.replace(value, MASK.encode())
    if b"sk-" in content or b"earer" in content or b"EARER" in content:
        content = _TOKENS.sub(MASK.encode(), content)
    return content


def api_key(option_value: Any) -> SecretStr | None:
    """The API key from ``--llm-api-key`` (already a SecretStr), else ``SPROUT_LLM_API_KEY``."""
    if option_value:
        return SecretStr(option_value)
    env = os.environ.get(ENV_VAR)
    return SecretStr(env) if env else None
