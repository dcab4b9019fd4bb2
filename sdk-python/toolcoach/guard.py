"""The guard's check, run in the agent's process before a tool runs (README "Guarded execution"): arguments against the
tool's JSON Schema and the renames and limits the registry learned. Safe corrections are applied; unsafe calls are
refused with the words ``POST /v1/tools/:name/validate`` uses. The same kinds, rules and texts as the TypeScript SDK's
``sdk/src/argument-guard.ts``. Pure; standard library only.

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
# The refusal names the values a model should call the tool with, one call each; a long list is cut.
MAX_LISTED_ITEMS = 10
MAX_ITEM_CHARS = 40
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


class _Problem:
    __slots__ = ("message", "is_unsafe", "name")

    def __init__(self, message: str, is_unsafe: bool, name: Optional[str] = None) -> None:
        self.message = message
        # Several values for one, a value beyond a limit, a missing argument: the tool would fail or do the wrong thing.
        self.is_unsafe = is_unsafe
        self.name = name


class ArgumentGuard:
    """One tool's guard: built once per description version, then ``check`` per call."""

    def __init__(self, tool_name: str, parameters: Dict[str, Any], section: Optional[Dict[str, Any]], mode: str) -> None:
        self.tool_name = tool_name
        self.mode = mode
        self._schema = parameters if isinstance(parameters, dict) else {}
        self._section = section if isinstance(section, dict) else None
        self._properties = _properties_of(self._schema)
        self._declared = [name for name, _ in self._properties]
        renames = (self._section or {}).get("renames") or []
        self._learned_renames = {
            rename["wrong"]: rename["intended"]
            for rename in renames
            if isinstance(rename, dict) and isinstance(rename.get("wrong"), str) and isinstance(rename.get("intended"), str)
        }
        self._limits = [limit for limit in (self._section or {}).get("limits") or [] if _is_limit(limit)]

    def check(self, args: Any) -> Verdict:
        if self.mode == "off" or not isinstance(args, dict):
            return RUN
        problems = self._problems_of(args)
        if not problems or self.mode == "report":
            return RUN
        fixed = self._correct(args)
        is_fixed = fixed is not None and not self._problems_of(fixed["corrected"])
        if is_fixed and self.mode == "correct":
            return Verdict("correct", correction=fixed)
        if self.mode == "strict" or any(problem.is_unsafe for problem in problems):
            return Verdict("refuse", message=self._describe(args, problems, fixed if is_fixed else None))
        return RUN

    def _problems_of(self, args: Dict[str, Any]) -> List[_Problem]:
        problems = [_problem_of(error, args) for error in _SchemaCheck(self._schema).errors(args)]
        for limit in self._limits:
            value = _value_at(args, limit["path"])
            if not _is_number(value) or not _is_beyond(value, limit):
                continue
            bound = _js(limit["value"])
            if limit["bound"] == "upper":
                side = "%s or more" % bound if limit.get("isInclusive") else "above %s" % bound
            else:
                side = "%s or less" % bound if limit.get("isInclusive") else "below %s" % bound
            count = limit.get("evidenceCount")
            calls = "call" if count == 1 else "calls"
            problems.append(
                _Problem(
                    "'%s' is %s; %s fails (%s), learned from %s failed %s"
                    % (_name_of(limit["path"]), _js(value), side, limit.get("reason"), _js(count), calls),
                    True,
                )
            )
        return problems

    def _correct(self, args: Dict[str, Any]) -> Optional[Dict[str, Any]]:
        """Renames, one-element arrays unwrapped, exact numeric strings read as numbers; None when nothing applies or
        one is unsafe."""
        if not self._declared:
            return None
        corrected = dict(args)
        kinds: List[str] = []
        for wrong in list(args):
            if wrong in self._declared:
                continue
            intended = self._intended_name(wrong, corrected)
            if not intended:
                continue
            corrected[intended] = corrected.pop(wrong)
            _add(kinds, "rename")
        for name, types in self._properties:
            if name not in corrected or not types or not all(t in SCALAR_TYPES for t in types):
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
        return {"original": args, "corrected": corrected, "kinds": kinds} if kinds else None

    def _intended_name(self, wrong: str, args: Dict[str, Any]) -> Optional[str]:
        """A learned rename, else a name that differs only in case, separators or a plural s, when it is the only one."""
        free = [name for name in self._declared if name not in args]
        learned = self._learned_renames.get(wrong)
        if learned is not None and learned in free:
            return learned
        key = _normalize_name(wrong)
        for is_match in (lambda other: other == key, lambda other: _singular_of(other) == _singular_of(key)):
            found = [name for name in free if is_match(_normalize_name(name))]
            if len(found) == 1:
                return found[0]
            if len(found) > 1:
                return None
        return None

    def _describe(self, args: Dict[str, Any], problems: List[_Problem], fixed: Optional[Dict[str, Any]]) -> str:
        """validate's words for what is wrong; several items for one value say how to call instead."""
        messages: List[str] = []
        intended_of: Dict[str, str] = {}
        for wrong in args:
            intended = None if wrong in self._declared else self._intended_name(wrong, args)
            if intended:
                intended_of[intended] = wrong
        for name, types in self._properties:
            sent_as = intended_of.get(name)
            value = args.get(sent_as if sent_as is not None else name)
            if not isinstance(value, list) or not types or not all(t in SCALAR_TYPES for t in types):
                continue
            noun = " or ".join(types)
            if sent_as:
                messages.append(
                    "'%s' is not a parameter of this tool; the parameter is '%s' (one %s)%s" % (sent_as, name, noun, _array_advice(value, noun))
                )
            else:
                messages.append("'%s' must be %s, not an array%s" % (name, noun, _array_advice(value, noun)))
        if not messages:
            for intended, wrong in intended_of.items():
                messages.append("'%s' is not a parameter of this tool; the parameter is '%s'" % (wrong, intended))
        # a problem already said under its argument's name is not said again
        for problem in problems:
            if problem.name is None or not any("'%s'" % problem.name in message for message in messages):
                messages.append(problem.message)
        fix = "; call it as %s" % _json(fixed["corrected"]) if fixed else ""
        return "%s was not called: %s%s" % (self.tool_name, "; ".join(dict.fromkeys(messages)), fix)


def _problem_of(error: Tuple[str, str, Dict[str, Any], str], args: Dict[str, Any]) -> _Problem:
    keyword, at, params, message = error
    if keyword == "required":
        name = str(params.get("missingProperty", ""))
        return _Problem("'%s' is required" % name, True, name)
    if keyword == "additionalProperties":
        name = str(params.get("additionalProperty", ""))
        return _Problem("'%s' is not a parameter of this tool" % name, False, name)
    name = None if at == "" else _name_of(at)
    is_bound = keyword in _BOUNDS
    is_several = keyword == "type" and isinstance(_value_at(args, at), list)
    subject = "arguments" if name is None else "'%s'" % name
    return _Problem("%s %s" % (subject, message), is_bound or is_several, name)


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
            found.append(("enum", at, {}, "must be equal to one of the allowed values"))
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


def _properties_of(parameters: Dict[str, Any]) -> List[Tuple[str, List[str]]]:
    properties = parameters.get("properties")
    if not isinstance(properties, dict):
        return []
    return [(name, _types_of(schema)) for name, schema in properties.items()]


def _types_of(schema: Any) -> List[str]:
    if not isinstance(schema, dict):
        return []
    kind = schema.get("type")
    if isinstance(kind, str):
        return [kind]
    return [entry for entry in kind if isinstance(entry, str) and entry != "null"] if isinstance(kind, list) else []


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
    listed = [_truncate(_json(item), MAX_ITEM_CHARS) for item in value[:MAX_LISTED_ITEMS]]
    more = ", and %d more" % (len(value) - MAX_LISTED_ITEMS) if len(value) > MAX_LISTED_ITEMS else ""
    return ": pass one %s per call: call this tool once per item, for each of %s%s" % (noun, ", ".join(listed), more)


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
