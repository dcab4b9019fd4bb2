"""Secret redaction applied before an event leaves the agent (the server redacts again before storage)."""

from __future__ import annotations

import re
from typing import Any

REDACTED = "[REDACTED]"

# The same rules as the server (src/ingest/secret-redaction.ts) and the TypeScript SDK, checked by all three against
# test/fixtures/redaction-cases.json, so a value looks the same whichever side redacted it. Keys are compared
# lower-cased without "-", "_" and blanks.
_SECRET_KEY = re.compile(
    r"password|passwd|passphrase|secret|token|apikey|accesskey|privatekey|authorization|credential|cookie"
    r"|(?:auth|pwd)$|^pass$"
)
_KEY_SEPARATORS = re.compile(r"[-_\s]")
_SECRET_IN_TEXT = re.compile(
    r"((?:pass(?:word|wd|phrase)?|secret|token|api[-_ ]?key|access[-_ ]?key|private[-_ ]?key|authorization|credentials?"
    r"|cookie)[\"']?\s*[:=]\s*[\"']?(?:(?:Bearer|Basic|Token)[ \t]+)?)([^\"',}&\s]{1,4096})",
    re.IGNORECASE,
)


def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY.search(_KEY_SEPARATORS.sub("", key.lower())))


def redact_secrets(value: Any) -> Any:
    """Replaces the value under every secret-looking key, at any depth. Numbers and booleans are kept
    (``max_tokens: 512`` is a limit, not a credential)."""
    if isinstance(value, list):
        return [redact_secrets(item) for item in value]
    if isinstance(value, dict):
        out = {}
        for key, child in value.items():
            secret = (
                is_secret_key(str(key))
                and child is not None
                and not isinstance(child, (bool, int, float))
            )
            out[key] = REDACTED if secret else redact_secrets(child)
        return out
    return value


def redact_secrets_in_text(text: str) -> str:
    """``password=hunter2`` and ``'api_key': 'sk-...'`` inside free text (repr'd kwargs, error messages)."""
    return _SECRET_IN_TEXT.sub(lambda match: match.group(1) + REDACTED, text)


def redact_event(event: dict) -> dict:
    """A copy of ``event`` with secrets removed from the fields that hold user data."""
    out = dict(event)
    for field in ("arguments", "result", "metadata"):
        if field in out:
            value = out[field]
            out[field] = redact_secrets_in_text(value) if isinstance(value, str) else redact_secrets(value)
    error = out.get("error")
    if isinstance(error, dict):
        error = dict(error)
        for field in ("message", "stack"):
            if isinstance(error.get(field), str):
                error[field] = redact_secrets_in_text(error[field])
        out["error"] = error
    if isinstance(out.get("prompt"), str):
        out["prompt"] = redact_secrets_in_text(out["prompt"])
    return out
