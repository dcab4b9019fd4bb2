"""The guard's check, run in the agent's process before a tool runs (docs/guard.md): arguments against the
tool's JSON Schema and the renames and limits the registry learned. Safe corrections are applied; unsafe calls are
refused with the words ``POST /v1/tools/:name/validate`` uses. A port of the guard core that the server, the TypeScript
SDK and the gateway share (``packages/core``: argument-findings, guard-verdict, learned-limits, argument-names,
untrusted-text), held to the same cases by ``test/fixtures/guard-conformance.json``. Pure; standard library only.

The schema check is the subset of JSON Schema tool schemas use (type, enum, const, required, properties,
additionalProperties, items, prefixItems, the numeric bounds, lengths, pattern, multipleOf, anyOf, oneOf, allOf, local
``$ref``), worded as Ajv words it; other keywords are not checked, as Ajv with ``strict: false`` ignores unknown ones."""

from __future__ import annotations

import json
import math
import re
from decimal import Decimal, InvalidOperation
from typing import Any, Dict, List, Optional, Tuple

MODES = ("off", "report", "correct", "strict")
SCALAR_TYPES = {"string", "number", "integer", "boolean"}
# An exact decimal: what the model meant as a number and wrote in quotes, with nothing a conversion would lose.
EXACT_NUMBER = re.compile(r"^-?(?:0|[1-9]\d{0,14})(?:\.\d{1,15})?$")
# The values a model should call the tool with (one call each), or may choose from, as JSON; a long list is cut.
MAX_LISTED_ITEMS = 10
MAX_ITEM_CHARS = 40
# Errors a check lists at most, and unknown names looked up at most, as the server's validate does.
MAX_REPORTED_ERRORS = 100
MAX_MATCHED_UNKNOWN_NAMES = 16
MAX_MATCHED_NAME_CHARS = 64
MAX_MATCHED_CANDIDATES = 256
SUBTYPE_BY_KEYWORD = {
    "required": "missing_argument",
    "dependentRequired": "missing_argument",
    "dependencies": "missing_argument",
    "additionalProperties": "unknown_argument",
    "unevaluatedProperties": "unknown_argument",
    "type": "type_mismatch",
    "maximum": "above_maximum",
    "exclusiveMaximum": "above_maximum",
    "maxLength": "above_maximum",
    "maxItems": "above_maximum",
    "maxProperties": "above_maximum",
    "minimum": "below_minimum",
    "exclusiveMinimum": "below_minimum",
    "minLength": "below_minimum",
    "minItems": "below_minimum",
    "minProperties": "below_minimum",
    "enum": "not_in_enum",
    "const": "not_in_enum",
    "pattern": "invalid_format",
    "format": "invalid_format",
}
_ARGUMENT_MISMATCH = ("missing_argument", "unknown_argument", "type_mismatch", "malformed_arguments")
NOT_AN_OBJECT = {
    "category": "argument_mismatch",
    "subtype": "malformed_arguments",
    "path": "",
    "message": "arguments must be a JSON object of argument names to values",
}
# A schema's $ref chains and nesting are followed this deep; deeper parts are not checked.
MAX_SCHEMA_DEPTH = 32
_BOUNDS = {
    "maximum": ("<=", lambda value, bound: value <= bound),
    "minimum": (">=", lambda value, bound: value >= bound),
    "exclusiveMaximum": ("<", lambda value, bound: value < bound),
    "exclusiveMinimum": (">", lambda value, bound: value > bound),
}


class Verdict:
    """``action``: "run" (call the tool with the arguments as they are), "correct" (with ``correction["corrected"]``)
    or "refuse" (not at all; tell the model ``message``)."""

    __slots__ = ("action", "correction", "message")

    def __init__(self, action: str, correction: Optional[Dict[str, Any]] = None, message: Optional[str] = None) -> None:
        self.action = action
        self.correction = correction
        self.message = message

    def __repr__(self) -> str:
        return "Verdict(%r, correction=%r, message=%r)" % (self.action, self.correction, self.message)


RUN = Verdict("run")


class ArgumentGuard:
    """One tool's guard: built once per description version, then ``check`` per call."""

    def __init__(self, tool_name: str, parameters: Dict[str, Any], section: Optional[Dict[str, Any]], mode: str) -> None:
        self.tool_name = tool_name
        self.mode = mode
        self._schema = parameters if isinstance(parameters, dict) else {}
        self._section = section if isinstance(section, dict) else None
        renames = (self._section or {}).get("renames") or []
        self._learned_renames = {
            rename["wrong"]: rename["intended"]
            for rename in renames
            if isinstance(rename, dict) and isinstance(rename.get("wrong"), str) and isinstance(rename.get("intended"), str)
        }
        self._limits = [limit for limit in (self._section or {}).get("limits") or [] if _is_limit(limit)]

    def check(self, args: Any) -> Verdict:
        if self.mode == "off":
            return RUN
        return guard_verdict(self.tool_name, args, self.answer(args), self.mode)

    def answer(self, args: Any) -> Dict[str, Any]:
        """What validate would answer, whatever the mode: ``valid``, ``errors`` (category, subtype, path, message),
        ``suggestion`` and the correction's ``kinds``."""
        if not isinstance(args, dict):
            return {"valid": False, "errors": [NOT_AN_OBJECT], "suggestion": None}
        schema_errors = _SchemaCheck(self._schema).errors(args)
        beyond = check_learned_limits(args, self._limits)
        if not schema_errors:
            return {"valid": not beyond, "errors": beyond, "suggestion": None}
        declared, first, count = _undeclared_arguments(args, self._schema)
        missing = _missing_top_level_names(schema_errors)
        renames: Dict[str, str] = {}
        for wrong in first[:MAX_MATCHED_UNKNOWN_NAMES]:
            free = [name for name in declared if name not in args and name not in renames.values()]
            intended = intended_argument_of(wrong, free, self._learned_renames, missing, count)
            if intended is not None:
                renames[wrong] = intended
        errors = _describe_schema_errors(schema_errors, args, self._schema, first, renames)
        fixed = _correct_arguments(args, self._schema, renames) if _is_correctable(schema_errors, renames) else None
        is_fixed = fixed is not None and not _SchemaCheck(self._schema).errors(fixed[0])
        kept = fixed if is_fixed and not check_learned_limits(fixed[0], self._limits) else None
        answer: Dict[str, Any] = {"valid": False, "errors": errors + beyond, "suggestion": kept[0] if kept else None}
        if kept:
            answer["kinds"] = kept[1]
        return answer


def is_unsafe(error: Dict[str, Any], args: Any) -> bool:
    """Several values for one, a value beyond a bound or a learned limit, a missing argument: the tool would fail or do
    the wrong thing, so even the ``correct`` mode refuses the call."""
    if error.get("subtype") in ("missing_argument", "above_maximum", "below_minimum"):
        return True
    return error.get("subtype") == "type_mismatch" and isinstance(_value_at(args, error.get("path") or ""), list)


def guard_verdict(tool: str, args: Any, answer: Dict[str, Any], mode: str) -> Verdict:
    """What the guard does with a call in ``mode``, given what the check found."""
    if mode in ("off", "report") or answer["valid"] or not isinstance(args, dict):
        return RUN
    if answer["suggestion"] is not None and mode == "correct":
        correction = {"original": args, "corrected": answer["suggestion"], "kinds": list(answer.get("kinds") or [])}
        return Verdict("correct", correction=correction)
    if mode == "strict" or any(is_unsafe(error, args) for error in answer["errors"]):
        return Verdict("refuse", message=refusal_text(tool, answer))
    return RUN


def refusal_text(tool: str, answer: Dict[str, Any]) -> str:
    """The refusal a model reads: every finding once, in order, then the corrected call when there is one."""
    messages = list(dict.fromkeys(error["message"] for error in answer["errors"]))
    fix = "" if answer["suggestion"] is None else "; call it as %s" % _json(answer["suggestion"])
    return "%s was not called: %s%s" % (tool, "; ".join(messages), fix)


def check_learned_limits(args: Dict[str, Any], limits: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """One finding per limit a numeric argument is beyond, in validate's words."""
    findings = []
    for limit in limits:
        value = _value_at(args, limit["path"])
        if not _is_number(value) or not _is_beyond(value, limit):
            continue
        bound = _js(limit["value"])
        if limit["bound"] == "upper":
            side = "%s or more" % bound if limit.get("isInclusive") else "above %s" % bound
        else:
            side = "%s or less" % bound if limit.get("isInclusive") else "below %s" % bound
        count = limit.get("evidenceCount")
        # a nested limit is named by its whole path: "/options/depth" -> "options/depth"
        name = limit["path"][1:].replace("~1", "/").replace("~0", "~")
        calls = "call" if count == 1 else "calls"
        findings.append(
            {
                "kind": "beyond_learned_limit",
                "category": "overflow" if limit.get("reason") == "overflow" else "out_of_range",
                "subtype": "above_maximum" if limit["bound"] == "upper" else "below_minimum",
                "path": limit["path"],
                "message": "%s is %s; %s fails (%s), learned from %s failed %s"
                % (quote_name(name), _js(value), side, limit.get("reason"), _js(count), calls),
            }
        )
    return findings


def _undeclared_arguments(args: Dict[str, Any], schema: Dict[str, Any]) -> Tuple[List[str], List[str], int]:
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not properties:
        return [], [], 0
    strays = [name for name in args if name not in properties]
    return list(properties), strays[:MAX_REPORTED_ERRORS], len(strays)


def _missing_top_level_names(schema_errors: List[Tuple[str, str, Dict[str, Any], str]]) -> List[str]:
    names: List[str] = []
    for keyword, at, params, _ in schema_errors:
        if at != "" or SUBTYPE_BY_KEYWORD.get(keyword) != "missing_argument":
            continue
        name = params.get("missingProperty", params.get("property"))
        if isinstance(name, str) and name not in names:
            names.append(name)
    return names


def _describe_schema_errors(
    schema_errors: List[Tuple[str, str, Dict[str, Any], str]],
    args: Dict[str, Any],
    schema: Dict[str, Any],
    strays: List[str],
    renames: Dict[str, str],
) -> List[Dict[str, Any]]:
    errors: List[Dict[str, Any]] = []
    seen = set()

    def add(error: Dict[str, Any]) -> None:
        key = (error["subtype"], error["path"])
        if key in seen or len(errors) >= MAX_REPORTED_ERRORS:
            return
        errors.append(error)
        seen.add(key)

    for error in schema_errors:
        if error[0] in SUBTYPE_BY_KEYWORD:
            add(_describe_error(error, args, schema, renames))
    # Without additionalProperties:false a renamed argument shows only as a missing one; name the stray too.
    reports_unknown = any(error["subtype"] == "unknown_argument" for error in errors)
    reports_missing_at_top = any(error["subtype"] == "missing_argument" and error["path"].rfind("/") == 0 for error in errors)
    if not reports_unknown and reports_missing_at_top:
        for name in strays:
            add(_unknown_argument_error("", name, args, schema, renames))
    # Composite keywords (anyOf, not, ...) explain nothing their leaves do not; alone, they are all there is.
    if not errors:
        for _, at, _, message in schema_errors:
            add({"category": "argument_mismatch", "subtype": None, "path": at, "message": _with_name(at, message)})
    return errors


def _describe_error(
    error: Tuple[str, str, Dict[str, Any], str], args: Dict[str, Any], schema: Dict[str, Any], renames: Dict[str, str]
) -> Dict[str, Any]:
    keyword, at, params, message = error
    subtype = SUBTYPE_BY_KEYWORD[keyword]
    category = "argument_mismatch" if subtype in _ARGUMENT_MISMATCH else "out_of_range"
    if subtype == "missing_argument":
        name = str(params.get("missingProperty", params.get("property", "")))
        sent_as = next((wrong for wrong, intended in renames.items() if intended == name), None) if at == "" else None
        text = "%s is required%s" % (quote_name(name), "" if sent_as is None else "; it was sent as %s" % quote_name(sent_as))
        return {"category": category, "subtype": subtype, "path": "%s/%s" % (at, _escape(name)), "message": text}
    if subtype == "unknown_argument":
        return _unknown_argument_error(at, str(params.get("additionalProperty", "")), args, schema, renames)
    if subtype == "type_mismatch":
        if at == "":
            text = "arguments must be a JSON object"
            return {"category": "argument_mismatch", "subtype": "malformed_arguments", "path": "", "message": text}
        value = _value_at(args, at)
        if value is None:
            text = _with_name(at, "is required (null was given)")
            return {"category": "argument_mismatch", "subtype": "missing_argument", "path": at, "message": text}
        expected = _type_list(params.get("type"))
        if isinstance(value, list) and _is_scalar_type_list(expected):
            noun = " or ".join(expected)
            text = _with_name(at, "must be %s, not an array%s" % (noun, _array_advice(value, noun)))
            return {"category": category, "subtype": subtype, "path": at, "message": text}
    if keyword == "enum" and isinstance(params.get("allowedValues"), list):
        text = _with_name(at, "must be one of %s" % _listed(params["allowedValues"]))
        return {"category": category, "subtype": subtype, "path": at, "message": text}
    return {"category": category, "subtype": subtype, "path": at, "message": _with_name(at, message)}


def _unknown_argument_error(
    parent: str, name: str, args: Dict[str, Any], schema: Dict[str, Any], renames: Dict[str, str]
) -> Dict[str, Any]:
    intended = renames.get(name) if parent == "" else None
    message = "%s is not a parameter of this tool" % quote_name(name)
    if intended is not None:
        message += "; the parameter is %s" % quote_name(intended)
        value = args.get(name)
        types = _declared_types_of(schema, intended)
        if isinstance(value, list) and _is_scalar_type_list(types):
            message += " (one %s)%s" % (" or ".join(types), _array_advice(value, " or ".join(types)))
    return {"category": "argument_mismatch", "subtype": "unknown_argument", "path": "%s/%s" % (parent, _escape(name)), "message": message}


def _is_correctable(schema_errors: List[Tuple[str, str, Dict[str, Any], str]], renames: Dict[str, str]) -> bool:
    """A correction renames only the names looked up and unwraps arrays: a call that keeps a refused stray cannot become
    valid."""
    for keyword, at, params, _ in schema_errors:
        if SUBTYPE_BY_KEYWORD.get(keyword) != "unknown_argument":
            continue
        name = params.get("additionalProperty")
        if at != "" or not isinstance(name, str) or name not in renames:
            return False
    return True


def _correct_arguments(
    args: Dict[str, Any], schema: Dict[str, Any], renames: Dict[str, str]
) -> Optional[Tuple[Dict[str, Any], List[str]]]:
    """Renamed arguments, one-element arrays unwrapped and exact numeric strings read as numbers for scalar parameters;
    None when nothing applies or one is unsafe (several items for a scalar)."""
    corrected = {name: value for name, value in args.items() if name not in renames}
    kinds: List[str] = []
    for wrong, intended in renames.items():
        corrected[intended] = args[wrong]
        _add(kinds, "rename")
    properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
    for name in properties:
        types = _declared_types_of(schema, name)
        if name not in corrected or not _is_scalar_type_list(types):
            continue
        value = corrected[name]
        if isinstance(value, list):
            if len(value) != 1:
                return None
            corrected[name] = value[0]
            _add(kinds, "unwrap_array")
        scalar = corrected[name]
        if isinstance(scalar, str) and "string" not in types:
            number = _exact_number(scalar, types)
            if number is not None:
                corrected[name] = number
                _add(kinds, "numeric_string")
    return (corrected, kinds) if kinds else None


# The port of packages/core/src/argument-names.ts: which declared name an unknown one stands for.
_SYNONYM_GROUPS = [
    ["n", "num", "number", "no"],
    ["qty", "quantity", "count", "cnt"],
    ["q", "query", "search", "searchquery", "querystring", "term", "searchterm"],
    ["msg", "message", "text", "content"],
    ["id", "identifier", "key"],
    ["desc", "description"],
    ["loc", "location", "place"],
    ["addr", "address"],
    ["dir", "directory", "folder"],
    ["val", "value"],
    ["idx", "index", "position", "pos"],
    ["len", "length", "size"],
    ["max", "maximum", "limit"],
    ["min", "minimum"],
    ["lat", "latitude"],
    ["lon", "lng", "long", "longitude"],
    ["temp", "temperature"],
    ["dt", "date", "day"],
    ["img", "image", "picture"],
    ["src", "source", "from"],
    ["dst", "dest", "destination", "target", "to"],
    ["pwd", "password", "pass"],
    ["usr", "user", "username", "login"],
    ["amt", "amount", "sum"],
    ["url", "uri", "link", "href"],
    ["lang", "language", "locale"],
    ["filename", "file", "path", "filepath"],
    ["city", "town", "cityname"],
    ["email", "mail", "emailaddress"],
]
_SYNONYMS: Dict[str, set] = {}
for _group in _SYNONYM_GROUPS:
    for _name in _group:
        _SYNONYMS.setdefault(_name, set()).update(other for other in _group if other != _name)


def intended_argument_of(wrong: str, free: List[str], learned: Dict[str, str], missing: List[str], stray_count: int) -> Optional[str]:
    """A rename learned from the tool's calls, else the name itself, else beside the missing required names: the one it
    matches, or the only one when it is the call's only stray."""
    from_calls = learned.get(wrong)
    if from_calls is not None and from_calls in free:
        return from_calls
    by_name = match_argument_name(wrong, free)
    if by_name is not None:
        return by_name
    missing_free = [name for name in missing if name in free]
    beside = match_argument_name(wrong, missing_free)
    if beside is not None:
        return beside
    return missing_free[0] if stray_count == 1 and len(missing) == 1 and len(missing_free) == 1 else None


def match_argument_name(wrong: str, candidates: List[str]) -> Optional[str]:
    """The declared name ``wrong`` most likely stands for, or None: the same name modulo case and separators, singular
    or plural, a known abbreviation, a small typo, one name's words within the other's; a tie within a tier is None."""
    if not wrong or len(wrong) > MAX_MATCHED_NAME_CHARS or len(candidates) > MAX_MATCHED_CANDIDATES:
        return None
    pool = [(name, _normalize_name(name)) for name in candidates if name != wrong and len(name) <= MAX_MATCHED_NAME_CHARS]
    if not pool:
        return None
    wrong_key = _normalize_name(wrong)
    wrong_singular = _singular_of(wrong_key)
    tiers = (
        lambda key: key == wrong_key,
        lambda key: _singular_of(key) == wrong_singular,
        lambda key: _are_synonyms(wrong_key, key),
    )
    for is_match in tiers:
        found = _unique_match(pool, is_match)
        if found is not None:
            return found
    by_distance = _closest_by_edit_distance(wrong_key, pool)
    if by_distance is not None:
        return by_distance
    wrong_words = _split_words(wrong)
    return _unique_match(pool, lambda key: _have_word_subset(wrong_words, key, wrong_key))


def _are_synonyms(a: str, b: str) -> bool:
    b_forms = (b, _singular_of(b))
    return any(other in _SYNONYMS.get(form, ()) for form in (a, _singular_of(a)) for other in b_forms)


def _unique_match(pool: List[Tuple[str, str]], is_match: Any) -> Optional[str]:
    found: Optional[Tuple[str, str]] = None
    for candidate in pool:
        if not is_match(candidate[1]):
            continue
        if found is not None and found[1] != candidate[1]:
            return None
        found = found or candidate
    return found[0] if found else None


def _closest_by_edit_distance(wrong_key: str, pool: List[Tuple[str, str]]) -> Optional[str]:
    allowed = _allowed_edit_distance(len(wrong_key))
    if allowed == 0:
        return None
    best: Optional[Tuple[str, str]] = None
    best_distance = math.inf
    is_tie = False
    for candidate in pool:
        limit = min(allowed, _allowed_edit_distance(len(candidate[1])))
        if limit == 0 or abs(len(candidate[1]) - len(wrong_key)) > limit:
            continue
        distance = _osa_distance(wrong_key, candidate[1])
        if distance > limit:
            continue
        if distance < best_distance:
            best, best_distance, is_tie = candidate, distance, False
        elif distance == best_distance and best is not None and best[1] != candidate[1]:
            is_tie = True
    return None if is_tie or best is None else best[0]


def _allowed_edit_distance(length: int) -> int:
    """Short names tolerate fewer edits: "id" vs "ip" is a different argument, "quantty" vs "quantity" a typo."""
    return 0 if length <= 3 else 1 if length <= 6 else 2


def _osa_distance(a: str, b: str) -> int:
    """Optimal string alignment distance (Damerau-Levenshtein with adjacent transpositions); names are at most 64
    characters, so the whole table is cheap."""
    rows = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        rows[i][0] = i
    for j in range(len(b) + 1):
        rows[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            rows[i][j] = min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                rows[i][j] = min(rows[i][j], rows[i - 2][j - 2] + 1)
    return rows[len(a)][len(b)]


def _have_word_subset(wrong_words: List[str], candidate_key: str, wrong_key: str) -> bool:
    if len(wrong_key) < 3 or len(candidate_key) < 3:
        return False
    if candidate_key.startswith(wrong_key) or candidate_key.endswith(wrong_key):
        return True
    if len(wrong_words) > 1 and all(len(word) >= 3 and word in candidate_key for word in wrong_words):
        return True
    return wrong_key.startswith(candidate_key) or wrong_key.endswith(candidate_key)


def _split_words(name: str) -> List[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name).lower()
    return [word for word in re.split(r"[\s_\-.]+", spaced) if word]


# The port of packages/core/src/untrusted-text.ts (quoteName): names from calls are data, never prose.
_PLAIN_NAME = re.compile(r"[A-Za-z_$][A-Za-z0-9_$.\-]{0,63}")
_LINK_LIKE_NAME = re.compile(r"^www\.|\.(?:com|net|org|io|ai|co|app|dev|xyz|info|me|ly|ru|cn|sh|gg|to|link|site|online)$", re.IGNORECASE)
MAX_QUOTED_LENGTH = 60


def quote_name(name: str) -> str:
    """A name as the guard quotes it: ``'number'``, or bounded JSON with every character outside printable ASCII
    escaped when it is not a plain identifier (a name that renders blank or looks Latin must show what it is)."""
    if _PLAIN_NAME.fullmatch(name) and not _LINK_LIKE_NAME.search(name):
        return "'%s'" % name
    escaped = "".join(ch if 0x20 <= ord(ch) <= 0x7E else _escape_units(ch) for ch in _json(name))
    return escaped if len(escaped) <= MAX_QUOTED_LENGTH else escaped[:MAX_QUOTED_LENGTH] + "…"


def _escape_units(ch: str) -> str:
    """JavaScript's escape of a character: one UTF-16 unit each, as ``\\u3164``."""
    code = ord(ch)
    if code <= 0xFFFF:
        return "\\u%04x" % code
    code -= 0x10000
    return "\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))


def _with_name(pointer: str, message: str) -> str:
    return "arguments %s" % message if pointer == "" else "%s %s" % (quote_name(_name_of(pointer)), message)


def _listed(values: List[Any]) -> str:
    items = [_truncate(_json(item), MAX_ITEM_CHARS) for item in values[:MAX_LISTED_ITEMS]]
    more = ", and %d more" % (len(values) - MAX_LISTED_ITEMS) if len(values) > MAX_LISTED_ITEMS else ""
    return ", ".join(items) + more


def _declared_types_of(schema: Dict[str, Any], name: str) -> List[str]:
    properties = schema.get("properties")
    declared = properties.get(name) if isinstance(properties, dict) else None
    return _type_list(declared.get("type")) if isinstance(declared, dict) else []


def _type_list(kind: Any) -> List[str]:
    if isinstance(kind, str):
        return kind.split(",")
    return [entry for entry in kind if isinstance(entry, str)] if isinstance(kind, list) else []


def _is_scalar_type_list(types: List[str]) -> bool:
    return bool(types) and all(kind in SCALAR_TYPES for kind in types)


class _SchemaCheck:
    """The errors of a value against a schema, each ``(keyword, instancePath, params, message)`` in Ajv's words."""

    def __init__(self, root: Dict[str, Any]) -> None:
        self._root = root

    def errors(self, value: Any) -> List[Tuple[str, str, Dict[str, Any], str]]:
        found: List[Tuple[str, str, Dict[str, Any], str]] = []
        self._check(self._root, value, "", found, 0)
        return found

    def _check(self, schema: Any, value: Any, at: str, found: List[Any], depth: int) -> None:
        if not isinstance(schema, dict) or depth > MAX_SCHEMA_DEPTH:
            if schema is False:
                found.append(("false schema", at, {}, "boolean schema is false"))
            return
        ref = schema.get("$ref")
        if isinstance(ref, str):
            self._check(self._resolve(ref), value, at, found, depth + 1)
        types = schema.get("type")
        type_list = [types] if isinstance(types, str) else [t for t in types if isinstance(t, str)] if isinstance(types, list) else []
        if type_list and not any(_has_type(value, t) for t in type_list):
            found.append(("type", at, {"type": types}, "must be %s" % ",".join(type_list)))
            return
        self._check_general(schema, value, at, found, depth)
        if _is_number(value):
            self._check_number(schema, value, at, found)
        elif isinstance(value, str):
            self._check_string(schema, value, at, found)
        elif isinstance(value, list):
            self._check_array(schema, value, at, found, depth)
        elif isinstance(value, dict):
            self._check_object(schema, value, at, found, depth)

    def _check_general(self, schema: Dict[str, Any], value: Any, at: str, found: List[Any], depth: int) -> None:
        if isinstance(schema.get("enum"), list) and not any(_equal(value, allowed) for allowed in schema["enum"]):
            found.append(("enum", at, {"allowedValues": schema["enum"]}, "must be equal to one of the allowed values"))
        if "const" in schema and not _equal(value, schema["const"]):
            found.append(("const", at, {}, "must be equal to constant"))
        for keyword, wording in (("anyOf", "must match a schema in anyOf"), ("oneOf", "must match exactly one schema in oneOf")):
            branches = schema.get(keyword)
            if not isinstance(branches, list) or not branches:
                continue
            branch_errors = []
            matched = 0
            for branch in branches:
                errors: List[Any] = []
                self._check(branch, value, at, errors, depth + 1)
                matched += not errors
                branch_errors.extend(errors)
            if (keyword == "anyOf" and matched == 0) or (keyword == "oneOf" and matched != 1):
                found.extend(branch_errors if matched == 0 else [])
                found.append((keyword, at, {}, wording))
        all_of = schema.get("allOf")
        for branch in all_of if isinstance(all_of, list) else []:
            self._check(branch, value, at, found, depth + 1)

    def _check_number(self, schema: Dict[str, Any], value: Any, at: str, found: List[Any]) -> None:
        for keyword, (comparison, holds) in _BOUNDS.items():
            bound = schema.get(keyword)
            if _is_number(bound) and not holds(value, bound):
                found.append((keyword, at, {"limit": bound}, "must be %s %s" % (comparison, _js(bound))))
        step = schema.get("multipleOf")
        if _is_number(step) and step > 0 and not _is_multiple(value, step):
            found.append(("multipleOf", at, {}, "must be multiple of %s" % _js(step)))

    def _check_string(self, schema: Dict[str, Any], value: str, at: str, found: List[Any]) -> None:
        length = len(value)  # code points, as Ajv counts
        if isinstance(schema.get("maxLength"), int) and length > schema["maxLength"]:
            found.append(("maxLength", at, {}, "must NOT have more than %d characters" % schema["maxLength"]))
        if isinstance(schema.get("minLength"), int) and length < schema["minLength"]:
            found.append(("minLength", at, {}, "must NOT have fewer than %d characters" % schema["minLength"]))
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            try:
                matches = re.search(pattern, value) is not None
            except re.error:  # a JavaScript pattern Python cannot read: not checked
                matches = True
            if not matches:
                found.append(("pattern", at, {}, 'must match pattern "%s"' % pattern))

    def _check_array(self, schema: Dict[str, Any], value: List[Any], at: str, found: List[Any], depth: int) -> None:
        if isinstance(schema.get("maxItems"), int) and len(value) > schema["maxItems"]:
            found.append(("maxItems", at, {}, "must NOT have more than %d items" % schema["maxItems"]))
        if isinstance(schema.get("minItems"), int) and len(value) < schema["minItems"]:
            found.append(("minItems", at, {}, "must NOT have fewer than %d items" % schema["minItems"]))
        prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
        for index, item in enumerate(value):
            item_schema = prefix[index] if index < len(prefix) else schema.get("items")
            if isinstance(item_schema, (dict, bool)):
                self._check(item_schema, item, "%s/%d" % (at, index), found, depth + 1)

    def _check_object(self, schema: Dict[str, Any], value: Dict[str, Any], at: str, found: List[Any], depth: int) -> None:
        required = schema.get("required")
        for name in required if isinstance(required, list) else []:
            if isinstance(name, str) and name not in value:
                found.append(("required", at, {"missingProperty": name}, "must have required property '%s'" % name))
        properties = schema.get("properties") if isinstance(schema.get("properties"), dict) else {}
        additional = schema.get("additionalProperties")
        # Ajv's order: the additional properties first, then the declared ones in the schema's order
        for name, item in value.items():
            if name in properties:
                continue
            if additional is False:
                found.append(("additionalProperties", at, {"additionalProperty": name}, "must NOT have additional properties"))
            elif isinstance(additional, dict):
                self._check(additional, item, "%s/%s" % (at, _escape(name)), found, depth + 1)
        for name, declared in properties.items():
            if name in value:
                self._check(declared, value[name], "%s/%s" % (at, _escape(name)), found, depth + 1)

    def _resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            return None  # a remote schema is not fetched: not checked
        current: Any = self._root
        for segment in ref[1:].split("/")[1:]:
            key = segment.replace("~1", "/").replace("~0", "~")
            if not isinstance(current, dict) or key not in current:
                return None
            current = current[key]
        return current


def _has_type(value: Any, name: str) -> bool:
    if name == "integer":
        return _is_number(value) and float(value).is_integer()
    if name == "number":
        return _is_number(value)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "array":
        return isinstance(value, list)
    if name == "object":
        return isinstance(value, dict)
    if name == "null":
        return value is None
    return True


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _is_multiple(value: Any, step: Any) -> bool:
    try:
        return (Decimal(str(value)) % Decimal(str(step))) == 0
    except InvalidOperation:
        return True


def _equal(left: Any, right: Any) -> bool:
    """JSON equality: 1 and 1.0 are equal, True and 1 are not."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left == right
    if _is_number(left) and _is_number(right):
        return left == right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(_equal(a, b) for a, b in zip(left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_equal(left[key], right[key]) for key in left)
    return type(left) is type(right) and left == right


def _exact_number(text: str, types: List[str]) -> Any:
    """The number ``text`` writes exactly as JavaScript would print it back, when a declared type takes it; else None."""
    if not EXACT_NUMBER.match(text):
        return None
    if "." not in text:
        value: Any = int(text)
        if str(value) != text:  # "-0"
            return None
        return value if ("number" in types or "integer" in types) else None
    if text.endswith("0"):  # "1.50" and "1.0" print back as "1.5" and "1"
        return None
    value = float(text)
    if Decimal(repr(value)) != Decimal(text):
        return None
    return value if "number" in types else None


def _is_limit(limit: Any) -> bool:
    return (
        isinstance(limit, dict)
        and isinstance(limit.get("path"), str)
        and limit.get("bound") in ("upper", "lower")
        and _is_number(limit.get("value"))
    )


def _is_beyond(value: Any, limit: Dict[str, Any]) -> bool:
    bound = limit["value"]
    if limit["bound"] == "upper":
        return value >= bound if limit.get("isInclusive") else value > bound
    return value <= bound if limit.get("isInclusive") else value < bound


def _array_advice(value: List[Any], noun: str) -> str:
    if len(value) == 1:
        return "; pass the single item itself"
    return ": pass one %s per call: call this tool once per item, for each of %s" % (noun, _listed(value))


def _value_at(args: Any, pointer: str) -> Any:
    current = args
    for segment in pointer.split("/")[1:]:
        if not isinstance(current, dict):
            return None
        key = segment.replace("~1", "/").replace("~0", "~")
        if key not in current:
            return None
        current = current[key]
    return current


def _name_of(pointer: str) -> str:
    return pointer[pointer.rfind("/") + 1 :].replace("~1", "/").replace("~0", "~")


def _escape(name: str) -> str:
    return name.replace("~", "~0").replace("/", "~1")


def _normalize_name(name: str) -> str:
    return re.sub(r"[\s_\-.]+", "", name.lower())


def _singular_of(key: str) -> str:
    if len(key) > 4 and key.endswith("ies"):
        return key[:-3] + "y"
    if len(key) > 4 and re.search(r"(?:ss|sh|ch|x|z)es$", key):
        return key[:-2]
    if len(key) > 3 and key.endswith("s") and not key.endswith("ss"):
        return key[:-1]
    return key


def _js(value: Any) -> str:
    """A number as JavaScript prints it (20, not 20.0), so both SDKs say the same."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value)


def _json(value: Any) -> str:
    """JSON as JavaScript's JSON.stringify writes it: no spaces, integral floats without a fraction."""
    return json.dumps(_js_numbers(value), separators=(",", ":"), ensure_ascii=False, default=str)


def _js_numbers(value: Any) -> Any:
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return int(value)
    if isinstance(value, list):
        return [_js_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: _js_numbers(item) for key, item in value.items()}
    return value


def _truncate(text: str, max_chars: int) -> str:
    return text if len(text) <= max_chars else text[: max_chars - 1] + "…"


def _add(kinds: List[str], kind: str) -> None:
    if kind not in kinds:
        kinds.append(kind)


__all__ = ["ArgumentGuard", "MODES", "Verdict"]
