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
def is_secret_key(key: str) -> bool:
    return bool(_SECRET_KEY.search(_KEY_SEPARATORS.sub("", key.lower())))


def redact_secrets(value: Any) -> Any:
    """Replaces the value under every secret-looking key, and the secrets inside every string (keys included), at any
    depth. Numbers and booleans are kept (``max_tokens: 512`` is a limit, not a credential)."""
    if isinstance(value, str):
        return redact_secrets_in_text(value)
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
            stored_key = redact_secrets_in_text(key) if isinstance(key, str) else key
            out[stored_key] = REDACTED if secret else redact_secrets(child)
        return out
    return value


def redact_secrets_in_text(text: str) -> str:
    """Secrets inside free text (repr'd kwargs, error messages, JSON text): ``password=hunter2``,
    ``'api_key': 'sk-...'``, URL passwords, PEM private keys and well-known token shapes (``sk-``, ``ghp_``, ``AKIA``,
    JWTs, ``Bearer ...``). The same scan as src/ingest/secrets-in-text.ts: no backtracking regex reads the text;
    separators are found with ``str.find``, token prefixes with one literal alternation, and each candidate is judged
    with a bounded look back or a forward read that the scan then skips."""
    out = _redact_private_keys(text) if "-----BEGIN" in text else text
    if "://" in out:
        out = _redact_url_passwords(out)
    out = _redact_key_values(out)
    return _redact_tokens(out) if _TOKEN_PREFIX.search(out) else out


_MAX_KEY_CHARS = 128
_MAX_GAP_CHARS = 4
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.")
_ALNUM = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_UPPER_OR_DIGIT = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
_DIGITS = frozenset("0123456789")
_BASE64URL = _ALNUM | frozenset("_-")
_BEARER_CHARS = _BASE64URL | frozenset("+/=~.")
_JWT_CHARS = _BASE64URL | frozenset(".")
_QUOTES = frozenset("\"'")
_BLANKS = frozenset(" \t")
_GAP = _QUOTES | _BLANKS | frozenset("\\")
_AUTHORITY_END = frozenset("/?#@\"'<>")
_AUTH_SCHEMES = ("bearer", "basic", "token")
_JSON_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


def _char(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


def _is_value_end(char: str) -> bool:
    return char == "" or char <= " " or char in "\"',;&})\\"


def _redact_key_values(text: str) -> str:
    out = []
    copied_up_to = 0
    colon = text.find(":")
    equals = text.find("=")
    while colon != -1 or equals != -1:
        separator = equals if colon == -1 else colon if equals == -1 else min(colon, equals)
        following = separator + 1
        is_key = not (separator == colon and _char(text, following) == "/") and _is_secret_key_before(text, separator)
        value = _value_after(text, following) if is_key else None
        if value is not None:
            out.append(text[copied_up_to : value[0]])
            out.append(REDACTED)
            copied_up_to = following = value[1]
        if colon != -1 and colon < following:
            colon = text.find(":", following)
        if equals != -1 and equals < following:
            equals = text.find("=", following)
    return text if copied_up_to == 0 else "".join(out) + text[copied_up_to:]


def _key_start(text: str, end: int) -> int:
    start = end
    while start > 0 and end - start < _MAX_KEY_CHARS and text[start - 1] in _KEY_CHARS:
        start -= 1
    return start


def _is_secret_key_before(text: str, separator: int) -> bool:
    end = separator
    while end > 0 and separator - end < _MAX_GAP_CHARS and text[end - 1] in _GAP:
        end -= 1
    start = _key_start(text, end)
    if start == end:
        return False
    if is_secret_key(text[start:end]):
        return True
    # two words: "api key: ...", "access key = ..."
    if start < 2 or text[start - 1] != " ":
        return False
    first_start = _key_start(text, start - 1)
    return first_start < start - 1 and is_secret_key(text[first_start:end])


def _value_after(text: str, start: int):
    while _char(text, start) in _BLANKS:
        start += 1
    opening = start
    while _char(text, opening) == "\\" and opening - start < _MAX_GAP_CHARS:
        opening += 1
    quote = text[start : opening + 1] if _char(text, opening) in _QUOTES else ""
    start += len(quote)
    start = _after_auth_scheme(text, start)
    if quote:
        end = _quoted_end(text, start, quote)
    elif _char(text, start) in ("{", "["):
        end = _bracket_end(text, start)
    else:
        end = start
        while end < len(text) and not _is_value_end(text[end]):
            end += 1
        literal = text[start:end]
        if literal in ("true", "false", "null") or _JSON_NUMBER.fullmatch(literal):
            return None
    return (start, end) if end > start else None


def _after_auth_scheme(text: str, start: int) -> int:
    for scheme in _AUTH_SCHEMES:
        if text[start : start + len(scheme)].lower() != scheme:
            continue
        following = start + len(scheme)
        if _char(text, following) not in _BLANKS:
            return start
        while _char(text, following) in _BLANKS:
            following += 1
        return following if following < len(text) and not _is_value_end(text[following]) else start
    return start


def _quoted_end(text: str, start: int, quote: str) -> int:
    is_escaped = len(quote) > 1
    quote_char = quote[-1]
    index = start
    while index < len(text):
        char = text[index]
        if char in "\n\r":
            return index
        if char == "\\":
            following = index + 1
            while _char(text, following) == "\\":
                following += 1
            if is_escaped and _char(text, following) == quote_char:
                return index
            index = following if is_escaped else index + 2
            continue
        if char == quote_char and not is_escaped:
            return index
        index += 1
    return len(text)


def _bracket_end(text: str, start: int) -> int:
    depth = 0
    in_string = False
    index = start
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 1
        elif char == '"':
            in_string = not in_string
        elif in_string:
            pass
        elif char in "{[":
            depth += 1
        elif char in "}]":
            depth -= 1
            if depth == 0:
                return index + 1
        index += 1
    return len(text)


def _redact_url_passwords(text: str) -> str:
    out = []
    copied_up_to = 0
    scheme = text.find("://")
    while scheme != -1:
        colon = -1
        index = scheme + 3
        # the authority ends at the next '/', so no character is read twice: the next '://' starts with one
        while index < len(text) and text[index] > " " and text[index] not in _AUTHORITY_END:
            if colon == -1 and text[index] == ":":
                colon = index
            index += 1
        if _char(text, index) == "@" and colon != -1 and colon + 1 != index:
            out.append(text[copied_up_to : colon + 1])
            out.append(REDACTED)
            copied_up_to = index
        scheme = text.find("://", scheme + 3)
    return text if copied_up_to == 0 else "".join(out) + text[copied_up_to:]


def _redact_private_keys(text: str) -> str:
    out = []
    copied_up_to = 0
    begin = text.find("-----BEGIN")
    while begin != -1:
        header_end = text.find("-----", begin + 10)
        if header_end == -1:
            break
        if header_end - begin <= 80 and "PRIVATE KEY" in text[begin:header_end]:
            body_start = header_end + 5
            end = text.find("-----END", body_start)
            out.append(text[copied_up_to:body_start])
            out.append(REDACTED)
            copied_up_to = len(text) if end == -1 else end
            if end == -1:
                break
            begin = end
        begin = text.find("-----BEGIN", begin + 10)
    return text if copied_up_to == 0 else "".join(out) + text[copied_up_to:]


# Prefixes of well-known credentials; each shape, by the prefix's first 3 characters: (min chars, needs a digit, exact
# chars, is a JWT, keeps the prefix, token characters).
_TOKEN_PREFIX = re.compile(
    r"sk-|sk_live_|sk_test_|rk_live_|rk_test_|gh[pousr]_|github_pat_|glpat-|xox[abposr]-|A[KS]IA|AIza|eyJ|[Bb]earer[ \t]"
)
_OPAQUE = (16, False, None, False, False, _BASE64URL)
_TOKEN_SHAPES = {
    "sk-": (20, True, None, False, False, _BASE64URL),
    "git": (40, False, None, False, False, _BASE64URL),
    "glp": (20, False, None, False, False, _BASE64URL),
    "xox": (10, False, None, False, False, _BASE64URL),
    "AKI": (16, False, 16, False, False, _UPPER_OR_DIGIT),
    "ASI": (16, False, 16, False, False, _UPPER_OR_DIGIT),
    "AIz": (30, False, None, False, False, _BASE64URL),
    "eyJ": (20, False, None, True, False, _JWT_CHARS),
    "Bea": (8, True, None, False, True, _BEARER_CHARS),
    "bea": (8, True, None, False, True, _BEARER_CHARS),
}
_GITHUB = (30, False, None, False, False, _BASE64URL)


def _redact_tokens(text: str) -> str:
    out = []
    copied_up_to = 0
    position = 0
    while True:
        match = _TOKEN_PREFIX.search(text, position)
        if match is None:
            break
        start = match.start()
        position = match.end()
        # a token starts a word: not inside one (task-..., mask_...), but after a '-' as after a blank
        if start > 0 and text[start - 1] in _KEY_CHARS and text[start - 1] != "-":
            continue
        prefix = match.group(0)
        shape = _TOKEN_SHAPES.get(prefix[:3]) or (_GITHUB if prefix.startswith("gh") else _OPAQUE)
        min_chars, needs_digit, exact_chars, is_jwt, keeps_prefix, chars = shape
        token_start = match.end()
        if keeps_prefix:
            while _char(text, token_start) in _BLANKS:
                token_start += 1
        end = token_start
        while end < len(text) and text[end] in chars:
            end += 1
        position = end
        token = text[token_start:end]
        if len(token) < min_chars or (needs_digit and not any(c in _DIGITS for c in token)):
            continue
        if is_jwt and token.count(".") < 2:
            continue
        if exact_chars is not None and (len(token) != exact_chars or _char(text, end) in _ALNUM):
            continue
        out.append(text[copied_up_to : token_start if keeps_prefix else start])
        out.append(REDACTED)
        copied_up_to = end
    return text if copied_up_to == 0 else "".join(out) + text[copied_up_to:]


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
