import type { Category, Subtype } from './diagnosis.types';

// The wording of real libraries and runtimes, mapped to the taxonomy. First match wins, so the order is the
// precedence: names of tools, then the shape of the arguments, then declared limits on values, then computation
// limits, then time, then the environment. A declared limit ("n must be <= 20") is out_of_range even when the text
// also says "overflow"; a computation that overflowed ("factorial overflow for n > 20") is overflow.
//
// Named groups carry extractions: `arg` (the argument named), `value` (the failing value), `expected` (the
// argument the library says was meant), `received` (the JSON/Python type that arrived). Patterns avoid nested
// quantifiers and bound every repetition, because messages are user-controlled text.

/** Range rules whose direction is told by the failing value: negative means below the minimum. */
export const BY_VALUE = 'by_value';

export interface MessageRule {
  /** A short id for debugging and tests; not persisted. */
  name: string;
  message?: RegExp;
  /** Matched against each exception type name known for the error (error.type, "ValueError: ..." prefixes). */
  errorType?: RegExp;
  category: Category;
  subtype: Subtype | null | typeof BY_VALUE;
  /** The pattern itself means an array arrived where one value was wanted. */
  isArrayForScalar?: boolean;
  /** The pattern implies the failing value (division by zero -> 0), used to find the argument that holds it. */
  impliedValue?: number;
  /** KeyError-like errors: a missing argument when the key is a declared or expected-but-absent argument. */
  isKeyLookup?: boolean;
  /** The wording fits both a malformed string and a number past what the runtime can represent ("Invalid time value"). */
  isOverflowForNumbers?: boolean;
}

const Q = `['"\`\u2018\u201c]`; // opening quote as libraries print it
const QE = `['"\`\u2019\u201d]`; // closing quote
const NAME = `[A-Za-z_$][\\w$.\\-]{0,127}`;
const NUM = `[-+]?\\d{1,40}(?:\\.\\d{1,40})?(?:e[-+]?\\d{1,4})?`;
const TYPE_WORDS = 'string|str|number|integer|int|float|boolean|bool|object|array|list|dict|null|none|undefined|nan|bigint|symbol|date|tuple|map|set';

function rx(source: string, flags = 'i'): RegExp {
  return new RegExp(source, flags);
}

const UNKNOWN_TOOL_RULES: MessageRule[] = [
  { name: 'langgraph-invalid-tool', message: rx(`(?:^|\\s)${Q}?${NAME}${QE}? is not a valid tool\\b`), category: 'unknown_tool', subtype: null },
  { name: 'tool-not-found', message: rx(`\\b(?:tool|function)\\s{1,4}(?:named\\s{1,4})?${Q}?${NAME}${QE}?\\s{1,4}(?:was\\s|is\\s)?not\\s(?:be\\s)?found\\b`), category: 'unknown_tool', subtype: null },
  { name: 'tool-not-registered', message: rx(`\\b(?:tool|function|action)\\s{1,4}${Q}?${NAME}${QE}?\\s{1,4}(?:does not exist|doesn't exist|don't exist|do not exist|is not (?:registered|defined|available|recognized|known)|not (?:registered|defined|available|recognized))`), category: 'unknown_tool', subtype: null },
  { name: 'unknown-tool', message: rx('\\b(?:unknown|unrecognized|unregistered|invalid) (?:tool|function)(?: name)?\\b(?!\\s(?:input|argument|parameter|call|params|output|result|response|schema|definition))'), category: 'unknown_tool', subtype: null },
  { name: 'no-such-tool', message: rx('\\bno (?:such )?(?:tool|function)s? (?:named|called|registered|found|with (?:the )?name)\\b|\\bno such tool\\b'), category: 'unknown_tool', subtype: null },
  { name: 'bfcl-wrong-func-name', message: rx(`Function name ${Q}${NAME}${QE} not found in model output`), category: 'unknown_tool', subtype: null },
  { name: 'groq-not-in-request-tools', message: rx('\\bwhich was not (?:in )?request\\.tools\\b'), category: 'unknown_tool', subtype: null },
  { name: 'jsonrpc-method-not-found', message: rx('\\bMethod not found\\b|-32601\\b'), category: 'unknown_tool', subtype: null },
  // Vercel AI SDK NoSuchToolError: "Model tried to call unavailable tool 'x'"; and tools said to be missing from a set.
  { name: 'unavailable-tool', message: rx(`\\bunavailable (?:tool|function)\\b|\\b(?:tool|function)s? ${Q}?${NAME}${QE}? (?:is |are )?(?:not|no longer) (?:available|present|found|registered|defined|listed) (?:in|among|on) (?:the |this )?(?:list of |available |registered )?(?:tools|functions|toolset|toolbox|tools_dict|agent|registry|server)\\b|\\bnot (?:in|among|part of) (?:the |this )?(?:list of |available |registered |provided |allowed )?(?:tools|functions|toolset|toolbox)\\b`), category: 'unknown_tool', subtype: null },
  // CrewAI "You tried to use the tool x, but it doesn't exist"; Semantic Kernel's plugin collection; Spring AI.
  { name: 'tool-does-not-exist', message: rx(`\\btried to (?:use|call|invoke|run) (?:the |a )?(?:tool|function|action) ${Q}?${NAME}${QE}?,? but (?:it |that |this )?(?:doesn't|does not|didn't|did not) exist\\b|\\bdoes not contain a plugin and/or function\\b|\\bno (?:tool ?callback|tool|function|handler|executor|implementation) (?:was )?(?:found|registered|available) for (?:the )?(?:tool|function)(?: name| call)?\\b`), category: 'unknown_tool', subtype: null },
  // A tool said to be missing before its name ("Tool not found: x", "Tools not found: x": Google ADK Java, LlamaIndex.TS),
  // or a tool the model asked for said not to exist ("The requested tool does not exist or is not available": Agno).
  { name: 'tool-not-found-colon', message: rx(`\\b(?:tool|function)s? (?:was |were |is |are )?not (?:found|available|registered|defined|recognized) ?: ?${Q}?${NAME}`), category: 'unknown_tool', subtype: null },
  { name: 'requested-tool-missing', message: rx('\\b(?:requested|specified|selected|called|given|chosen) (?:tool|function)(?: name)? (?:does not exist|doesn\'t exist|is not available|is unavailable|was not found|could not be found|is not registered|is unknown)\\b'), category: 'unknown_tool', subtype: null },
  // A tool said missing with no name at all ("Tool not found": Letta), or a tool choice the request's tools do not
  // hold ("Tool choice 'x' not found in 'tools' parameter": OpenAI).
  { name: 'tool-not-found-bare', message: rx(`^(?:Error: )?(?:tool|function) (?:was )?not found\\.?$|\\bnot found in ${Q}?tools${QE}? parameter\\b`), category: 'unknown_tool', subtype: null },
  // A tool the framework could not look up ("Unable to resolve tool: x": Genkit).
  { name: 'tool-unresolved', message: rx('\\b(?:unable to|could not|couldn\'t|cannot|can\'t|failed to) (?:resolve|find|locate|look up|lookup) (?:the |a |any )?(?:tool|function)s?(?: named| called| with (?:the )?name)?\\b'), category: 'unknown_tool', subtype: null },
];

const MALFORMED_RULES: MessageRule[] = [
  { name: 'json-parse-v8', message: rx('\\bin JSON at position \\d|is not valid JSON\\b|Unexpected end of JSON input|JSON\\.parse|Unterminated string in JSON|Bad control character in string literal|Unexpected non-whitespace character after JSON'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'python-json', message: rx("\\b(?:Expecting (?:value|property name enclosed in double quotes|',' delimiter|':' delimiter)|Unterminated string starting at|Extra data|Invalid control character at|Invalid \\\\escape): line \\d{1,9} column \\d"), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'pydantic-json-invalid', message: rx('\\bInvalid JSON\\b|\\bJSON input should be string, bytes or bytearray|\\bjson_invalid\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'langchain-invalid-tool-call', message: rx('\\bare not valid JSON\\b|\\bnot (?:a )?valid JSON\\b|\\b(?:could not|couldn\'t|failed to|unable to) (?:parse|decode)\\b[^\\n]{0,60}\\b(?:JSON|arguments)\\b|\\binvalid JSON\\b|\\bmalformed (?:JSON|arguments)\\b|\\barguments (?:are|were) malformed\\b|\\barguments must be (?:in |valid )?JSON\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'go-json', message: rx('\\binvalid character [^\\n]{1,8} (?:looking for beginning|after (?:object key|top-level value|array element))|\\bunexpected end of JSON input\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'serde-json', message: rx('\\bEOF while parsing (?:a|an) \\w{1,10}|\\b(?:expected value|trailing comma|trailing characters|key must be a string) at line \\d'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'jackson-parse', message: rx('\\bUnexpected character \\(\'[^\\n]{1,20}\\(code \\d{1,5}\\)\\)|\\bUnexpected end-of-input\\b|\\bJsonParseException\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'system-text-json-parse', message: rx('\\bis an invalid (?:start of a value|end of a number)\\b|\\bExpected depth to be zero\\b|\\b\'[^\'\\n]{1,4}\' is invalid after a (?:value|property name)\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'jsonrpc-parse-error', message: rx('\\bParse error\\b|-32700\\b'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  // Ruby's json gem ("859: unexpected token at '{n: 5}'").
  { name: 'ruby-json', message: rx("^\\d{1,5}: unexpected token at '"), category: 'argument_mismatch', subtype: 'malformed_arguments' },
  { name: 'json-decode-type', errorType: rx('^(?:JSONDecodeError|JsonParseException|JsonReaderException|JsonException|JsonEOFException)$'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
];

const UNKNOWN_ARGUMENT_RULES: MessageRule[] = [
  { name: 'python-unexpected-kwarg', message: rx(`got an unexpected keyword argument ${Q}(?<arg>${NAME})${QE}(?:\\. Did you mean ${Q}(?<expected>${NAME})${QE})?`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'python-too-many-positional', message: rx('takes (?:from \\d{1,3} to )?\\d{1,3} positional arguments? but \\d{1,3} (?:were|was) given'), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'pydantic-extra', message: rx('Extra inputs are not permitted|Unexpected keyword argument\\b'), category: 'argument_mismatch', subtype: 'unknown_argument' },
  // pydantic's no_such_attribute; case-sensitive so Python's AttributeError ("'x' object has no attribute") stays out.
  { name: 'pydantic-no-such-attribute', message: rx('^Object has no attribute', ''), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'ajv-additional', message: rx('must NOT have (?:additional|unevaluated) properties'), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'zod-unrecognized', message: rx(`Unrecognized keys?(?:\\(s\\))?(?: in object)?:\\s{0,3}${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'cfworker-additional', message: rx(`Property ${Q}(?<arg>${NAME})${QE} does not match additional properties schema`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'jsonschema-py-additional', message: rx(`Additional properties are not allowed \\(${Q}(?<arg>${NAME})${QE} (?:was|were) unexpected\\)`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'bfcl-unexpected-param', message: rx(`Unexpected (?:parameter|dict key parameter): ${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'jackson-unrecognized', message: rx(`Unrecognized (?:field|property) ${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'serde-unknown-field', message: rx('unknown field `(?<arg>[^`\\n]{1,128})`(?:, expected `(?<expected>[^`\\n]{1,128})`)?'), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'expected-received-name', message: rx(`\\bexpected(?: (?:argument|parameter|key|field|name)s?)?:\\s{0,3}${Q}?(?!(?:${TYPE_WORDS})\\b)(?<expected>[A-Za-z_][\\w.\\-]{0,63})${QE}?[.,;]?\\s{1,3}(?:but\\s)?received:\\s{0,3}${Q}?(?!(?:${TYPE_WORDS})\\b)(?<arg>[A-Za-z_][\\w.\\-]{0,63})`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  // Validators' own words: Symfony, yup, ArkType, TypeBox, cattrs, class-validator (NestJS), superstruct's `never`,
  // PHP's named arguments and Ruby's keywords.
  { name: 'validator-unknown-argument', message: rx(`\\bThis field was not expected\\b|\\bhas unspecified keys?:|\\bmust be removed\\b|\\bUnexpected property\\b|\\bextra fields? found\\b|\\bproperty ${Q}?(?<arg>${NAME})${QE}? should not exist\\b|\\bExpected never but received\\b|\\bExpected a value of type \\x60never\\x60|\\bUnknown named parameter \\$(?<arg2>\\w{1,64})|\\bunknown keywords?: :(?<arg3>\\w{1,64})`), category: 'argument_mismatch', subtype: 'unknown_argument' },
  { name: 'generic-unknown-argument', message: rx(`\\b(?:unknown|unexpected|unrecognized|extra|undeclared) (?:argument|parameter|param|field|property|key|keyword)(?: name)?s?\\b(?!\\s(?:type|value))(?::?\\s{0,3}${Q}?(?<arg>${NAME})${QE}?)?`), category: 'argument_mismatch', subtype: 'unknown_argument' },
];

const MISSING_ARGUMENT_RULES: MessageRule[] = [
  { name: 'python-missing-positional', message: rx(`missing \\d{1,3} required (?:positional |keyword-only )?arguments?: ${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'pydantic-missing', message: rx('\\bField required\\b|\\bMissing required argument\\b'), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'ajv-required', message: rx(`must have required property ${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'cfworker-required', message: rx(`does not have required property ${Q}(?<arg>${NAME})${QE}|Instance has ${Q}${NAME}${QE} but does not have ${Q}(?<arg2>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'jsonschema-py-required', message: rx(`${Q}(?<arg>${NAME})${QE} is a (?:required|dependency of)`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'bfcl-missing', message: rx(`Missing (?:required parameter|dict key parameter): ${Q}(?<arg>${NAME})${QE}|Optional parameter ${Q}(?<arg2>${NAME})${QE} not provided`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'dotnet-null', message: rx(`Value cannot be null\\.?(?:\\s{0,3}\\(Parameter ${Q}(?<arg>${NAME})${QE}\\))?|cannot be null|must not be null|is null or empty`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'zod-required', message: rx(`(?:^|✖\\s?|: )Required\\s*$|received undefined\\b|expected (?:${TYPE_WORDS}|nonoptional), received (?:undefined|null)\\b`, 'im'), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'serde-missing-field', message: rx('\\bmissing field `(?<arg>[^`\\n]{1,128})`'), category: 'argument_mismatch', subtype: 'missing_argument' },
  // "Missing number argument. Expected: 'number', 'n', ... Received: numbers": the name sits between the words.
  { name: 'missing-named-argument', message: rx(`\\bmissing ${Q}?(?!(?:required|a|an|the|one|some|any|all|optional|positional|keyword|named)\\b)(?<arg>[A-Za-z_][\\w.\\-]{0,63})${QE}? (?:argument|parameter|param|field|property|key|input)\\b`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'generic-missing', message: rx(`\\b(?:missing|absent|no value (?:given|provided) for)(?: required)? (?:argument|parameter|param|field|property|key|value|input)s?\\b(?::?\\s{0,3}${Q}?(?<arg>${NAME})${QE}?)?|\\b(?:argument|parameter|field|property) ${Q}(?<arg2>${NAME})${QE} is (?:required|missing)\\b|^${Q}?(?<arg3>[A-Za-z_][\\w.]{0,63})${QE}? is (?:required|missing)\\b|\\brequired (?:argument|parameter|field|property) ${Q}?(?<arg4>${NAME})${QE}? (?:is )?(?:missing|not (?:provided|given|set))`, 'im'), category: 'argument_mismatch', subtype: 'missing_argument' },
  // Validators' own words: Symfony, marshmallow, yup, ArkType, TypeBox, cattrs, class-validator, superstruct, io-ts,
  // go-playground/validator's `required` tag, Jackson's creator properties and nulls, Bean Validation, PHP and Ruby calls.
  { name: 'validator-missing', message: rx(`\\bThis (?:field|value) is missing\\b|\\bThis value should not be (?:null|blank)\\b|\\bMissing data for required field\\b|\\bField may not be null\\b|\\bis a required field\\b|\\(was missing\\)|\\bExpected required property\\b|\\brequired field missing\\b|\\bshould not be null or undefined\\b|\\bbut received: undefined\\b|\\bInvalid value (?:undefined|null) supplied to\\b|failed on the 'required(?:_\\w{1,20})?' tag|\\bMissing (?:required )?creator property ${Q}(?<arg>${NAME})${QE}|\\bCannot map \\x60null\\x60 into type\\b|\\bmay not be null\\b|\\bToo few arguments to function\\b|\\bmissing keywords?: :(?<arg2>\\w{1,64})|\\bObject missing required field\\b`), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'dotnet-argument-null-type', errorType: rx('^ArgumentNullException$'), category: 'argument_mismatch', subtype: 'missing_argument' },
  { name: 'key-lookup', errorType: rx('^(?:KeyError|KeyNotFoundException|NoSuchElementException)$'), category: 'runtime_error', subtype: null, isKeyLookup: true },
  { name: 'key-lookup-ruby', message: rx(`^key not found: ${Q}(?<arg>${NAME})${QE}`), category: 'runtime_error', subtype: null, isKeyLookup: true },
  { name: 'key-lookup-dotnet', message: rx(`The given key ${Q}?(?<arg>${NAME})${QE}? was not present in the dictionary`), category: 'runtime_error', subtype: null, isKeyLookup: true },
];

const MALFORMED_SHAPE_RULES: MessageRule[] = [
  { name: 'argument-after-stars', message: rx('argument after \\*\\* must be a mapping'), category: 'argument_mismatch', subtype: 'malformed_arguments' },
];

// A value that does not fit the type the tool stores it in is overflow (shared/taxonomy.md), whatever word the library
// uses; ahead of the type rules, since deserializers wrap it in their type-mismatch wording.
const STORAGE_OVERFLOW_RULES: MessageRule[] = [
  { name: 'storage-type-range', message: rx(`\\bNumeric value \\([^)\\n]{1,60}\\) out of range of (?:Java )?(?:int|long|short|byte)\\b|\\bOverflow: numeric value\\b|\\bcannot unmarshal number -?\\d{1,400} into Go [^\\n]{1,120} of type u?int\\d{0,2}\\b|\\bcannot unmarshal number [-+.\\d]{1,40}e[-+]?\\d{1,5} into Go [^\\n]{1,120} of type float\\d{2}\\b|\\b(?:integer|smallint|bigint) out of range\\b|\\bout of range for type (?:integer|smallint|bigint|numeric|real|double precision)\\b|\\bout of char range\\b|\\btoo big to convert (?:in)?to [\\\x60'](?:int|long|unsigned|short|char|long long)|\\bbignum too big\\b|\\btoo large for (?:an? )?(?:u|i)(?:8|16|32|64|128)\\b|\\bnumber too large to fit in target type\\b|\\bnumber too small to fit in target type\\b`), category: 'overflow', subtype: null },
];

const TYPE_MISMATCH_RULES: MessageRule[] = [
  // Closed sets that these deserializers word as a type: Jackson's enums, io-ts's keyof codecs.
  { name: 'deserializer-enum', message: rx('\\bnot one of the values accepted for Enum class\\b|\\bExpected \\("[^"\\n]{1,60}" \\||\\bsupplied to : [^\\n]{0,400}/\\w{1,64}: "[^"\\n]{1,60}" \\|'), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'validator-format', message: rx(`\\bNot a valid (?:email address|URL|UUID|datetime|date|time|IPv[46] address|IP address)\\b|\\bThis value is not (?:a )?valid(?: (?:email address|URL|UUID|IP address|date|datetime|time))?\\.|\\bExpected string to match ${Q}|\\bangle-addr\\b|\\bmust be (?:an? )?(?:email|UUID|URL address|ip address|valid ISO 8601 date string)\\b|\\bmust match \\/[^\\n]{1,120}\\/ regular expression\\b|\\bmust match (?:regex\\b|${Q})|\\bnot a well-formed\\b|\\bExpected a string matching\\b|\\bExpected \\\x60str\\\x60 matching regex\\b|\\bmust be matched by\\b|failed on the '(?:email|url|uri|uuid\\d?|ipv[46]|ip|datetime|e164|alpha|alphanum|numeric|hexadecimal|hexcolor|base64|json|latitude|longitude)' tag|\\bFailed to parse time string\\b|\\bUnknown or bad format\\b|\\bno time information in\\b`), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'validator-type', message: rx(`\\bThis value should be (?:of type \\w{1,20}|a valid number)\\b|\\bNot a valid (?:integer|number|string|boolean|list|mapping|tuple|float|decimal)\\b|\\bInvalid integer: Received\\b|\\bmust be a \\\x60(?<expected>\\w{1,20})\\\x60 type\\b|\\bmust be (?:an? )?(?:integer number|number conforming to the specified constraints|string|boolean value|array|object|number|integer|boolean)(?: \\(was [^\\n)]{1,40}\\))?\\s*(?:$|[",\\]])|(?:^|\\s)Expected (?:${TYPE_WORDS})\\s*$|\\bExpected \\\x60(?<expected2>[^\\\x60\\n]{1,40})\\\x60, got \\\x60(?<received>\\w{1,20})\\\x60|\\binvalid value for type, expected (?<expected3>\\w{1,20})\\b|\\bInvalid value [^\\n]{1,200} supplied to :|\\bmust be of type [\\w|?\\\\]{1,60}, (?<received2>\\w{1,20}) given\\b|\\bUnsupported operand types:|\\binvalid value for (?:Integer|Float|BigDecimal|Rational|Complex)\\(\\)|\\bcan't convert (?<received3>\\w{1,20}) into (?:Integer|Float|String|Array|Hash)\\b|\\bno implicit conversion of \\w{1,20} into\\b|\\bcan't be coerced into\\b|\\bundefined method [^\\n]{1,80} for [^\\n]{0,100}:(?:Array|Hash|Integer|String|Float)\\b|\\bCannot coerce [^\\n]{1,60} to\\b|\\bCannot construct instance of\\b|\\bcannot unmarshal number -?\\d{1,40}\\.\\d{1,40} into Go\\b`, 'im'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  // Before the generic "valid X" rules: parsing failures of dates/UUIDs/URLs are format problems.
  { name: 'pydantic-format-parsing', message: rx('Input should be a valid (?:date|datetime|time|timedelta|UUID|URL|email|IPv[46]|ip)\\b[^\\n]{0,40}(?:format|invalid|input is|unable to parse|relative|character|length|found|expected)|\\bvalue is not a valid email address\\b|\\bInput should be a valid URL\\b|\\bInput should be a valid UUID\\b'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'pydantic-valid-type', message: rx(`Input should be (?:a valid|an instance of|a finite|None\\b|an? (?:${TYPE_WORDS})\\b)|Input should be a valid (?:integer|number|string|boolean|list|dictionary|tuple|set|array|float|decimal|bytes|date|datetime|time|callable)`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'zod-expected-received', message: rx(`expected (?:an? )?(?<expected>${TYPE_WORDS}|[a-z]{2,12}), received (?<received>${TYPE_WORDS}|[a-z]{2,12})\\b`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'ajv-type', message: rx('\\bmust be (?:an? )?(?<expected>integer|number|string|boolean|array|object|null)(?:,(?:integer|number|string|boolean|array|object|null)){0,6}\\s*(?:$|[,;\\n)])', 'im'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'cfworker-type', message: rx('Instance type "(?<received>\\w{1,16})" is invalid\\. Expected "(?<expected>[^"\\n]{1,60})"'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'jsonschema-py-type', message: rx(`is not of type ${Q}(?<expected>\\w{1,16})${QE}`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'bfcl-type', message: rx(`Incorrect type for parameter ${Q}(?<arg>${NAME})${QE}`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'python-none-internal', message: rx("'NoneType' object (?:is not (?:subscriptable|iterable|callable)|has no attribute)"), category: 'runtime_error', subtype: null },
  { name: 'python-cannot-interpret', message: rx(`${Q}(?<received>\\w{1,32})${QE} object cannot be interpreted as an integer|only accepts integral values`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'python-operand-types', message: rx('unsupported operand type\\(s\\)|not supported between instances of|can only concatenate|can\'t multiply sequence|bad operand type for'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'python-must-be-not', message: rx(`\\b(?:must be|expected)(?: an?)? [\\w\\s,.\\-]{1,80}, not ${Q}?(?<received>\\w{1,32})${QE}?`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'python-object-protocol', message: rx(`${Q}(?<received>\\w{1,32})${QE} object (?:is not (?:iterable|subscriptable)|has no len)|object of type ${Q}(?<received2>\\w{1,32})${QE} has no len|argument of type ${Q}\\w{1,32}${QE} is not iterable|string indices must be integers|list indices must be integers`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'python-parse-number', message: rx(`invalid literal for (?:int|float)\\(\\)(?: with base \\d{1,2})?|could not convert string to (?:float|int)|could not convert ${Q}?\\w{1,16}${QE}? to`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'java-number-format', message: rx('For input string:|NumberFormatException|InputMismatchException|cannot be cast to|ClassCastException|Cannot deserialize value of type|MismatchedInputException'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'dotnet-format', message: rx(`(?:The )?input string (?:${Q}[^\\n]{0,100}${QE} )?was not in a correct format|Unable to cast object of type|The JSON value could not be converted to|could not be converted to (?:System\\.)?(?:Int\\d{2}|Double|Decimal|Boolean|Single)`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'go-strconv-syntax', message: rx('strconv\\.\\w{1,20}: parsing "[^"\\n]{0,100}": invalid syntax'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'go-unmarshal', message: rx('cannot unmarshal (?<received>\\w{1,16}) into Go (?:struct field \\w{0,64}\\.(?<arg>[\\w.]{1,64})|value) of type (?<expected>[\\w\\[\\].]{1,32})'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'node-invalid-arg-type', message: rx('ERR_INVALID_ARG_TYPE|must be (?:of type|an instance of) [^\\n]{1,60}Received (?:type |an instance of )?(?<received>\\w{1,32})'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'bigint-convert', message: rx('Cannot convert [^\\n]{1,60} to a BigInt'), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'generic-type', message: rx(`\\b(?:wrong|invalid|incorrect|unexpected|mismatched) (?:argument |parameter |value )?types?\\b|\\btype mismatch\\b|\\bexpected (?:an? )?(?:integer|number|string|boolean|array|list|object|int|float|numeric value)\\b(?:(?!length|maximum|minimum|size|at most|at least|less than|greater than)[^\\n]){0,40}\\b(?:got|but got|received|found|but was)\\b|\\bis not (?:a|an) (?:number|integer|string|numeric value|valid number|valid integer)\\b|\\bnot a number\\b`), category: 'argument_mismatch', subtype: 'type_mismatch' },
  { name: 'type-error-type', errorType: rx('^(?:NumberFormatException|FormatException|InputMismatchException|ClassCastException|InvalidCastException|MismatchedInputException)$'), category: 'argument_mismatch', subtype: 'type_mismatch' },
];

// Encodings and numeric formats whose wording would otherwise read as a closed set or a type ("illegal character among
// the padding characters", FormatException): the text the model sent has the wrong form.
const ENCODED_FORMAT_RULES: MessageRule[] = [
  { name: 'encoded-format', message: rx('\\bnot a valid Base-?64 string\\b|\\bInvalid base-?64\\b|\\bIncorrect padding\\b|\\bNon-base64 digit\\b|\\bInput is not a valid IPv[46] (?:address|network|interface)\\b|\\bFormat specifier was invalid\\b|\\b(?:does not|doesn\'t) accept (?:floating point )?Not-a-Number\\b|\\bNaN (?:is )?not (?:allowed|accepted|supported|permitted)\\b'), category: 'out_of_range', subtype: 'invalid_format' },
];

const NOT_IN_ENUM_RULES: MessageRule[] = [
  { name: 'pydantic-enum', message: rx(`Input should be (?:${Q}[^\\n]{0,120}${QE}|-?\\d{1,20}(?:, -?\\d{1,20}){0,20} or -?\\d{1,20})|\\bInput tag ${Q}[^\\n]{0,60}${QE} found using`), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'ajv-enum', message: rx('must be equal to (?:one of the allowed values|constant)'), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'zod-enum', message: rx(`Invalid enum value|Invalid literal value|Invalid option: expected one of|Invalid input: expected ${Q}|Invalid discriminator value`), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'cfworker-enum', message: rx('Instance does not match (?:any of )?[\\["{0-9tfn-]'), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'jsonschema-py-enum', message: rx(`is not one of \\[|\\bwas expected$`, 'im'), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'python-enum', message: rx(`is not a valid (?!(?:tool|URL|URI|UUID|GUID|JSON|ISO|IP|IPv4|IPv6|Date|DateTime|Time|Email|E-?mail|Number|Integer)\\b)[A-Z]\\w{0,63}\\b`, ''), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'java-enum', message: rx('No enum constant |Requested value [\'"][^\\n]{0,100}[\'"] was not found|\\bnot a valid enum\\b|\\bunknown enum\\b'), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'bfcl-value', message: rx(`Invalid value for parameter ${Q}(?<arg>${NAME})${QE}`), category: 'out_of_range', subtype: 'not_in_enum' },
  // Closed sets the runtime names in its own words: encodings, time zones, locales, currencies, hash algorithms.
  { name: 'runtime-closed-set', message: rx(`\\b(?:unknown|unsupported|invalid|unrecognized|illegal) (?:encoding|charset|codec|locale|time ?zone|timezone|time-zone ID|currency(?: code)?|hash(?: type| algorithm)?|algorithm|digest|cipher|compression(?: method)?|normalization form|language(?: code)?|country(?: code)?)\\b|\\bNo time zone found\\b`), category: 'out_of_range', subtype: 'not_in_enum' },
  // .NET's wording for a value outside an enumeration, a code page, culture or encoding it does not have.
  { name: 'runtime-closed-set-dotnet', message: rx(`\\benum(?:eration)? value (?:was |is )?(?:out of (?:the )?(?:legal |valid )?range|not (?:valid|defined|recognized))\\b|\\bIllegal enum value\\b|\\bis not a supported (?:code ?page|encoding(?: name)?|culture|locale|calendar|currency|algorithm|hash algorithm|cipher)\\b|\\b(?:Culture|Locale|Region|Calendar) (?:name |ID |IETF Name )?${Q}?[^\\n]{1,40}?${QE}? is not (?:supported|recognized|valid|a predefined culture|a recognized IETF name)\\b|\\bis an invalid culture identifier\\b`), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'validator-enum', message: rx(`\\bThe value you selected is not a valid choice\\b|\\bUnknown or bad timezone\\b|failed on the 'oneof' tag|\\bExpected union value\\b|\\bmust be in \\[|\\bmust be (?:${Q}[^\\n]{1,60}${QE}|-?\\d{1,20}), (?:or )?(?:${Q}|-?\\d)|\\bmust be ${Q}[^\\n]{1,60}${QE} or ${Q}|\\bmust be (?:STR_PAD_\\w{1,10}|a valid encoding)\\b`), category: 'out_of_range', subtype: 'not_in_enum' },
  { name: 'generic-enum', message: rx(`\\b(?:must be|should be|expected) one of\\b|\\bnot (?:one of|in|among) (?:the )?(?:allowed|accepted|supported|valid|permitted)(?: values| options| choices)?\\b|\\b(?:invalid|unsupported|unknown|unrecognized) (?:choice|option|unit|currency|language|mode|operation|operator|category|status|region|model|format option)\\b|\\bis not (?:a )?(?:supported|allowed|valid) (?:option|choice|value|unit|currency|language|mode|operation|operator|category)\\b|\\b(?:valid|allowed|supported) (?:values|options|choices) (?:are|is|include)\\b`), category: 'out_of_range', subtype: 'not_in_enum' },
];

const INVALID_FORMAT_RULES: MessageRule[] = [
  // Ahead of zod's wording, which shares "Invalid time". new Date('2024-13-45') and new Date(8.65e15) both give "Invalid time value": a format problem for a string, a range the runtime cannot represent for a number.
  { name: 'js-invalid-date', message: rx('Invalid time value|Invalid Date\\b'), category: 'out_of_range', subtype: 'invalid_format', isOverflowForNumbers: true },
  { name: 'pydantic-pattern', message: rx('String should match pattern|should be a valid (?:email|url|uuid)'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'ajv-pattern', message: rx('must match (?:pattern|format)'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'zod-format', message: rx('Invalid string: must|Invalid (?:email(?: address)?|url|URL|uuid|UUID|GUID|cuid2?|ulid|nanoid|emoji|ISO (?:datetime|date|time|duration)|datetime|date|time|duration|ip|IPv[46](?: address)?|base64(?:url)?(?:-encoded string)?|E\\.164 number|hex string|JWT|CIDR|MAC address)\\b'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'cfworker-pattern', message: rx('String does not match (?:pattern|format)|does not match format'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'jsonschema-py-format', message: rx(`\\bdoes not match ${Q}|\\bis not a ${Q}(?:email|uri|date|date-time|uuid|ipv4|ipv6|hostname|time|regex)${QE}`), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'python-datetime-format', message: rx('time data [^\\n]{1,120} does not match format|Invalid isoformat string|unconverted data remains|is not a valid (?:date|datetime|time|email|e-mail address|url|uri|uuid|ISO)|badly formed hexadecimal UUID string|Invalid IPv[46] address|does not appear to be an IPv[46]'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'java-datetime', message: rx('could not be parsed(?: at index \\d{1,5})?|DateTimeParseException|Invalid UUID string|was not recognized as a valid DateTime|Unrecognized Guid format|Guid should contain'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'js-invalid-url', message: rx('Invalid URL\\b|ERR_INVALID_URL|URI malformed'), category: 'out_of_range', subtype: 'invalid_format' },
  // Regular expressions and format strings the model passed as arguments (Python re, JavaScript RegExp, Java regex and Formatter, strftime).
  { name: 'malformed-pattern', message: rx(`\\bInvalid regular expression\\b|\\bInvalid flags supplied to RegExp\\b|\\bunterminated (?:subpattern|character set|group)\\b|\\bbad escape\\b|\\bnothing to repeat\\b|\\bunbalanced parenthesis\\b|\\bmultiple repeat\\b|\\bUnclosed (?:group|character class|counted closure)\\b|\\bDangling meta character\\b|\\bIllegal repetition\\b|\\berror parsing regexp\\b|\\b(?:Unknown|Invalid|bad) format (?:code|specifier|string|directive|conversion)\\b|\\bis a bad directive in format\\b|\\bMissing format argument\\b`), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'generic-format', message: rx('\\b(?:invalid|wrong|bad|incorrect|malformed|unrecognized) (?:date|time|datetime|timestamp|email|e-mail|url|uri|uuid|guid|phone(?: number)?|zip(?: code)?|postal code|iso ?\\d{0,4}|date format|format|pattern|syntax|hex|color|ip(?: address)?|address format)\\b|\\binvalid [\\w -]{1,30}? format\\b|\\bnot in (?:the )?(?:correct|expected|valid|required|right) format\\b|\\bdoes not match (?:the )?(?:expected |required )?(?:pattern|format|regex|regular expression)\\b|\\bexpected format\\b'), category: 'out_of_range', subtype: 'invalid_format' },
  { name: 'format-type', errorType: rx('^(?:DateTimeParseException|UriFormatException)$'), category: 'out_of_range', subtype: 'invalid_format' },
];

// Wordings that only a computation limit produces; ahead of declared limits because some contain "out of range".
const COMPUTATION_LIMIT_RULES: MessageRule[] = [
  { name: 'go-strconv-range', message: rx('strconv\\.\\w{1,20}: parsing "[^"\\n]{0,100}": value out of range'), category: 'overflow', subtype: null },
  // Values past what the runtime can represent, worded without "overflow": dates and timestamps, C and index-sized integers, non-finite floats, buffers and durations.
  { name: 'representable-range', message: rx("\\byear -?\\d{1,12} is out of range\\b|\\bdate value out of range\\b|\\b(?:timestamp|time) out of range for\\b|\\bout of range for platform\\b|\\bcannot fit '?\\w{1,20}'? into an? [\\w-]{1,30} integer\\b|\\b(?:signed|unsigned|short|long) integer is (?:greater than maximum|less than minimum)\\b|\\bOut of range float values\\b|\\bexceeds (?:the )?minimum or maximum\\b|\\bExceeds (?:the )?capacity of\\b|\\bexceeds (?:the )?(?:VM|implementation) limit\\b|\\bun-?representable\\b|\\bnot representable\\b|\\bInvalid (?:array buffer|typed array|buffer) length\\b|\\bNon-terminating decimal expansion\\b|\\b(?:result|value) (?:is )?(?:Infinity|NaN|infinite|not finite)\\b"), category: 'overflow', subtype: null },
  // An overflow type with range wording is the runtime's limit, not a declared one ("OverflowError: date value out of range", "days=...; must have magnitude <= 999999999").
  { name: 'overflow-type-range', errorType: rx('^(?:OverflowError|OverflowException|ArithmeticError)$'), message: rx('\\bout of range\\b|\\b(?:greater|less|larger|smaller) than\\b|\\btoo (?:large|big|small|long)\\b|\\bexceeds?\\b|\\bmagnitude\\b|<=?|>=?'), category: 'overflow', subtype: null },
  { name: 'recursion-depth', message: rx('Maximum stack depth exceeded|nesting of \\d{1,9} is too deep|maximum recursion depth exceeded|Maximum call stack size exceeded|too much recursion|stack level too deep|recursion (?:limit|depth)'), category: 'overflow', subtype: null },
  { name: 'runtime-size-limit', message: rx('\\bDivision of PHP_INT_MIN by -1\\b|\\(\\$\\w{1,40}\\) is too large\\b|\\bexceeds the maximum array size\\b|\\bargument too big\\b|\\barray size too big\\b|\\bfailed to allocate memory\\b'), category: 'overflow', subtype: null },
  { name: 'result-too-large', message: rx('\\b(?:arrays?|objects?|strings?|buffers?) larger than \\d{1,6} ?[KMGT]B (?:are|is) not supported\\b|math range error|Numerical result out of range|Result too large|too large to convert|too large to (?:represent|compute|fit|store)|Exceeds the limit \\(\\d{1,9} digits\\)|integer string conversion|cannot convert float (?:infinity|NaN) to integer|Value was either too large or too small|too large or too small for|exceeds (?:the )?(?:maximum )?(?:safe integer|representable|precision|max safe)|BigInt(?:eger)? (?:would overflow|too big)|Maximum BigInt size exceeded|Invalid (?:array|string|typed array) length|Array buffer allocation failed|out of memory|Java heap space|MemoryError|result (?:is )?(?:too (?:large|big)|infinite|not finite)|is too large to compute|precision (?:limit|loss)'), category: 'overflow', subtype: null },
];

const DECLARED_LIMIT_RULES: MessageRule[] = [
  { name: 'pydantic-less-than', message: rx('Input should be less than|should have at most \\d|(?:String|List|Dictionary|Set|Tuple|Value|Array) should have at most'), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'pydantic-greater-than', message: rx('Input should be greater than|should have at least \\d|(?:String|List|Dictionary|Set|Tuple|Value|Array) should have at least|Date should be in the (?:future|past)'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'ajv-max', message: rx('must be <=? ?-?\\d|must NOT have more than \\d|must NOT be longer than'), category: 'out_of_range', subtype: 'above_maximum' },
  // Validators' own words for declared bounds: go-playground/validator's tags, TypeBox, msgspec, valibot, Symfony,
  // superstruct, class-validator and marshmallow's lengths.
  { name: 'validator-max', message: rx(`failed on the '(?:max|lte|lt|len)' tag|\\bExpected [\\w ]{1,30}? (?:to be )?less (?:or equal to|than)\\b|\\bExpected \\\x60[^\\\x60\\n]{1,40}\\\x60(?: of length)? <=? ?-?\\d|\\bExpected <=? ?-?\\d|\\bThis value should be less than\\b|\\bshould contain \\d{1,9} elements? or less\\b|\\bExpected an? \\w{1,20} less than\\b|\\bmust contain no more than \\d|\\bmust be shorter than or equal to\\b|\\bLonger than maximum length\\b|\\bmust be at most\\b|\\bThis value should be -?\\d[\\d.]{0,20} or less\\b`), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'validator-min', message: rx(`failed on the '(?:min|gte|gt)' tag|\\bExpected [\\w ]{1,30}? (?:to be )?greater (?:or equal to|than)\\b|\\bExpected \\\x60[^\\\x60\\n]{1,40}\\\x60(?: of length)? >=? ?-?\\d|\\bExpected >=? ?-?\\d|\\bThis value should be greater than\\b|\\bshould contain \\d{1,9} elements? or more\\b|\\bExpected an? \\w{1,20} greater than\\b|\\bmust be longer than or equal to\\b|\\bShorter than minimum length\\b|\\bThis value should be -?\\d[\\d.]{0,20} or more\\b|\\bmust not be less than\\b|\\bout of domain\\b`), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'ajv-min', message: rx('must be >=? ?-?\\d|must NOT have fewer than \\d|must NOT be shorter than'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'zod-too-big', message: rx('Too big:|(?:Number|BigInt|Date) must be (?:less than|smaller than|before)|(?:String|Array|Set) must contain at most|(?:String|Array) must be at most|must contain at most \\d'), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'zod-too-small', message: rx('Too small:|(?:Number|BigInt|Date) must be (?:greater than|after)|(?:String|Array|Set) must contain at least|(?:String|Array) must be at least|must contain at least \\d'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'cfworker-jsonschema-max', message: rx(`(?<value>${NUM}) is greater than\\b|String is too long|Array has too many items|\\bis too long\\b|has more than \\d{1,9} (?:items|properties|characters)|\\bis too many\\b|non-empty array of at most`), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'cfworker-jsonschema-min', message: rx(`(?<value>${NUM}) is less than\\b|String is too short|Array has too few items|\\bis too short\\b|should be non-empty`), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'dotnet8-range', message: rx(`(?<arg>${NAME}) \\('(?<value>[^'\\n]{0,40})'\\) must be (?:less than|greater than|a non-negative|a non-zero|a positive|a negative|non-negative|equal to|not equal to)`), category: 'out_of_range', subtype: BY_VALUE },
  { name: 'java-value-range', message: rx(`Invalid value for \\w{1,40} \\(valid values -?\\d{1,20} - -?\\d{1,20}(?:/-?\\d{1,20})?\\): (?<value>${NUM})`), category: 'out_of_range', subtype: BY_VALUE },
  { name: 'rejected-negative', message: rx(`\\b(?:invalid|illegal|bad)\\b[^\\n]{0,40}?:\\s?(?<value>-\\d{1,20}(?:\\.\\d{1,20})?)\\s*$`, 'im'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'date-in-future', message: rx('\\bmust be in the future\\b|\\bmust be (?:after|later than)\\b'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'date-in-past', message: rx('\\bmust be in the past\\b|\\bmust be (?:before|earlier than)\\b'), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'declared-between', message: rx(`\\bMust be greater than (?:or equal to )?-?\\d[^\\n]{0,20} and less than\\b|\\bThis value should be between\\b|\\bwith a length between\\b|\\bmust (?:be |lie )?(?:between|in (?:the )?range|within (?:the )?range|in \\[|from) -?\\d|\\bmust be in -?\\d{1,20}\\s?\\.\\.|\\bnot (?:with)?in (?:the )?(?:valid |allowed |accepted )?range\\b|\\bis out of (?:the )?(?:valid |allowed )?range\\b(?! for (?:float|int))|\\bout of bounds\\b|\\bout of range\\b|\\boutside (?:the )?(?:valid |allowed )?range\\b|Specified argument was out of the range|Index was out of range|Index (?<value>${NUM}) out of bounds for length|index out of range|Actual value was (?<value2>${NUM})`), category: 'out_of_range', subtype: BY_VALUE },
  // An empty value where text is needed is the low end of its length ("The path is empty.", "cannot be an empty string").
  { name: 'empty-value', message: rx('\\b(?:path|value|string|name|file ?name|query|text|input|argument|parameter|key) (?:is|was) empty\\b|\\b(?:cannot|can\'t|must not|may not|should not) be (?:an )?empty(?: string)?\\b|\\bEmpty (?:file )?name is not legal\\b'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'math-domain', message: rx('math domain error|not defined for negative values|negative (?:numbers?|values?|inputs?) (?:is |are )?not (?:allowed|supported|permitted)|\\bcannot be negative\\b|\\bmust not be negative\\b|\\bmust be (?:non-?negative|positive|a positive|a non-negative|nonzero|non-zero|at least|greater than|larger than|bigger than|above|>=?|no (?:less|smaller) than)\\b|\\bshould be (?:non-?negative|positive|at least|greater than)\\b|\\bbelow (?:the )?minimum\\b|\\bless than (?:the )?minimum\\b|\\bunder the minimum\\b|\\bsquare root of (?:a )?negative\\b|\\blogarithm of (?:a )?(?:non-positive|negative|zero)\\b'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'division-by-zero', message: rx('division by zero|divide by zero|/ by zero|modulo by zero|Attempted to divide by zero|Division by zero'), category: 'out_of_range', subtype: 'below_minimum', impliedValue: 0 },
  { name: 'declared-maximum', message: rx('\\bmust (?:be )?(?:<=?|less than|smaller than|lower than|at most|below|no (?:more|greater|larger) than|not exceed|not be (?:greater|larger|more|bigger) than|up to|less than or equal to)\\s{0,3}[\'"]?-?\\d|\\b(?:must|should|cannot|can\'t|may not) (?:exceed|be (?:more|greater|larger|bigger) than)\\b|\\bexceeds? (?:the )?(?:max(?:imum)?|upper (?:bound|limit)|allowed|limit of|maximum allowed)\\b|\\b(?:above|over|greater than) (?:the )?(?:max(?:imum)?|upper (?:bound|limit)|allowed maximum|limit)\\b|\\bmaximum (?:allowed |permitted )?(?:value |length |size )?(?:is|of) -?\\d|\\bshould be (?:<=?|less than|at most|no more than)\\s{0,3}-?\\d|\\bis limited to\\b'), category: 'out_of_range', subtype: 'above_maximum' },
];

const OVERFLOW_RULES: MessageRule[] = [
  // Not "overflow 10": SQLAlchemy's pool settings ("QueuePool limit of size 5 overflow 10 reached") name a count.
  { name: 'overflow-word', message: rx('\\boverflow(?:s|ed|ing)?\\b(?! \\d)|\\bover-?flow error\\b|StackOverflow'), category: 'overflow', subtype: null },
  { name: 'overflow-type', errorType: rx('^(?:OverflowError|OverflowException|RecursionError|StackOverflowError|MemoryError|OutOfMemoryError|InsufficientExecutionStackException|FloatingPointError|FloatDomainError|NoMemoryError|SystemStackError)$'), category: 'overflow', subtype: null },
];

const LATE_RANGE_RULES: MessageRule[] = [
  { name: 'too-large', message: rx('\\btoo (?:large|big|high|long|many|much)\\b'), category: 'out_of_range', subtype: 'above_maximum' },
  { name: 'too-small', message: rx('\\btoo (?:small|low|short|few|little)\\b|\\bnegative\\b'), category: 'out_of_range', subtype: 'below_minimum' },
  { name: 'range-type', errorType: rx('^(?:IndexError|ArgumentOutOfRangeException|IndexOutOfRangeException|IndexOutOfBoundsException|ArrayIndexOutOfBoundsException|StringIndexOutOfBoundsException|RangeError)$'), category: 'out_of_range', subtype: BY_VALUE },
  { name: 'zero-division-type', errorType: rx('^(?:ZeroDivisionError|DivideByZeroException)$'), category: 'out_of_range', subtype: 'below_minimum', impliedValue: 0 },
];

const TIMEOUT_RULES: MessageRule[] = [
  { name: 'timeout-words', message: rx('\\btimed? ?out\\b|\\btime-?out\\b|\\btimeouts?\\b|ETIMEDOUT|ESOCKETTIMEDOUT|deadline (?:exceeded|expired)|DEADLINE_EXCEEDED|took too long|exceeded (?:the )?(?:time limit|timeout|deadline)|time limit exceeded|UND_ERR_(?:CONNECT|HEADERS|BODY)_TIMEOUT|ReadTimeout|ConnectTimeout|Gateway Time-?out|Request Time-?out|(?:status(?: code)?|HTTP(?:/\\d(?:\\.\\d)?)?|code|error|returned)[:\\s]{1,3}(?:504|408)\\b|^(?:504|408)\\b|\\b(?:504|408) (?:Gateway|Request)|-32001\\b|\\bcontext deadline\\b|\\bexecution expired\\b', 'im'), category: 'timeout', subtype: null },
  { name: 'timeout-type', errorType: rx('timeout|TimedOut|DeadlineExceeded|TaskCanceledException'), category: 'timeout', subtype: null },
];

const RUNTIME_RULES: MessageRule[] = [
  { name: 'rate-limit', message: rx('\\brate[ _-]?limit|Too Many Requests|\\bquota (?:exceeded|exhausted)|exceeded (?:your|the) (?:current )?quota|insufficient_quota|RESOURCE_EXHAUSTED|\\bthrottl(?:ed|ing)\\b|(?:status(?: code)?|HTTP(?:/\\d(?:\\.\\d)?)?|code|error|returned)[:\\s]{1,3}429\\b|^429\\b|\\b429 Too|overloaded_error|\\bOverloaded\\b', 'im'), category: 'runtime_error', subtype: null },
  { name: 'http-5xx', message: rx('Internal Server Error|Bad Gateway|Service (?:Temporarily )?Unavailable|(?:status(?: code)?|HTTP(?:/\\d(?:\\.\\d)?)?|code|error|returned)[:\\s]{1,3}5\\d\\d\\b|^5\\d\\d\\b|\\b5\\d\\d (?:Internal|Bad|Service|Server)|\\bserver error\\b|\\bupstream\\b|-32603\\b|\\bInternal error\\b', 'im'), category: 'runtime_error', subtype: null },
  { name: 'network', message: rx('ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EPIPE|ECONNABORTED|socket hang up|Connection (?:refused|reset|aborted|closed|error)|fetch failed|getaddrinfo|Name or service not known|Temporary failure in name resolution|nodename nor servname|No route to host|Network is unreachable|network error|Failed to establish a new connection|Max retries exceeded|Remote end closed connection|SSL(?:Error|: )|certificate verify failed|No such host is known|UnknownHostException|ConnectException|Could not resolve host|DNS|\\bUNAVAILABLE\\b|actively refused|SSL routines|wrong version number|unrecognized SSL message|ended by the other party|Connection reset by peer'), category: 'runtime_error', subtype: null },
  { name: 'permission', message: rx('permission denied|EACCES|EPERM|PermissionError|Access (?:is )?denied|AccessDenied|\\bForbidden\\b|\\bUnauthorized\\b|not authorized|unauthenticated|invalid api[ _-]?key|Incorrect API key|authentication (?:failed|error|required)|insufficient (?:permissions|privileges|scope)|(?:status(?: code)?|HTTP(?:/\\d(?:\\.\\d)?)?|code|error|returned)[:\\s]{1,3}(?:401|403)\\b|^(?:401|403)\\b', 'im'), category: 'runtime_error', subtype: null },
  { name: 'internal-bug', message: rx("Cannot read propert(?:y|ies) of (?:undefined|null)|is not a function\\b|undefined is not an object|is not defined\\b|Object reference not set to an instance|NullPointerException|NullReferenceException|\\bnull pointer\\b|No module named|ModuleNotFoundError|ImportError|cannot import name|has no attribute|AttributeError|NameError|UnboundLocalError|NotImplementedError|not implemented\\b|IllegalStateException|UnsupportedOperationException|ConcurrentModificationException|No such file or directory|ENOENT|FileNotFoundError|ENOSPC|No space left on device|disk full|deadlock|database is locked|connection pool|Event loop is closed|Segmentation fault|core dumped|panic:|assertion failed|AssertionError|\\bdisabled\\b|Service not available|not available\\b|is unavailable\\b|too many open files|EMFILE|broken pipe|out of stock"), category: 'runtime_error', subtype: null },
  // The environment and the tool's own state: OS error numbers, files and directories, processes, closed or busy resources, exhausted pools, certificates.
  // OS error numbers, case-sensitive: Python's "[Errno 17] File exists", Node's "EISDIR: illegal operation on a directory".
  { name: 'os-error-number', message: rx('\\[Errno -?\\d{1,5}\\]|\\b(?:EEXIST|EISDIR|ENOTDIR|ENOTEMPTY|EBADF|EBUSY|EROFS|EADDRINUSE|EADDRNOTAVAIL|EAGAIN|EDQUOT|EXDEV|ELOOP|ETXTBSY|ESRCH|ECHILD|EIO|ENOTSUP|EOPNOTSUPP)\\b', ''), category: 'runtime_error', subtype: null },
  { name: 'environment-state', message: rx("\\b(?:File|Directory|Table|Resource|Lock) (?:already )?exists\\b|\\balready exists\\b|\\bhas already been added\\b|\\bIs a directory\\b|\\bNot a directory\\b|\\bDirectory not empty\\b|\\bNo such (?:process|device|table|database|column|index|host|bucket|container)\\b|\\bNo child processes\\b|\\bBad file descriptor\\b|\\bRead-only file system\\b|\\b(?:Device or )?resource busy\\b|\\bResource temporarily unavailable\\b|\\baddress already in use\\b|\\bOperation not permitted\\b|\\bchanged size during iteration\\b|\\bcan only be started once\\b|\\balready (?:started|running|closed|connected|in use|in progress|been (?:started|closed|consumed|used|awaited|released))\\b|\\b(?:operate|operation) on (?:a )?closed\\b|\\bon closed (?:file|socket|stream|connection|database|cursor|channel)\\b|\\b(?:connection|database|file|socket|stream|channel|pool|session|client|cursor|pipe) (?:is |was |has been )?(?:closed|destroyed|shut ?down|exhausted|full|not open)\\b|\\bis not a (?:zip|gzip|tar|valid zip) file\\b|\\bfile is not a database\\b|\\bdatabase disk image is malformed\\b|\\bCommand failed\\b|\\breturned non-zero exit status\\b|\\bexit(?:ed with)? (?:code|status) [1-9]|\\bwrite after end\\b|\\bstream was destroyed\\b|\\b(?:is|was) not running\\b|\\bpool (?:is )?exhausted\\b|\\bexhausted (?:the )?(?:connection )?pool\\b|\\b(?:relation|table) [\"'`]?[\\w.]{1,64}[\"'`]? does not exist\\b|\\bCERTIFICATE_VERIFY_FAILED\\b|\\bcertificate (?:has )?expired\\b|\\bself[- ]signed certificate\\b|\\bunable to (?:get|verify) (?:the )?(?:local issuer )?certificate\\b|\\bhandshake (?:failed|failure)\\b|\\bdisk quota exceeded\\b|\\bcurrent thread is not owner\\b|\\bQueue (?:is )?full\\b|\\brejected from\\b|\\bheaders after they are sent\\b"), category: 'runtime_error', subtype: null },
  { name: 'runtime-type', errorType: rx('^(?:ConnectionError|ConnectionRefusedError|ConnectionResetError|ConnectionAbortedError|BrokenPipeError|PermissionError|FileNotFoundError|IsADirectoryError|NotADirectoryError|OSError|IOError|IOException|UncheckedIOException|NullPointerException|NullReferenceException|IllegalStateException|InvalidOperationException|AttributeError|NameError|ImportError|ModuleNotFoundError|NotImplementedError|NotImplementedException|UnsupportedOperationException|UnboundLocalError|HttpRequestException|HTTPError|HTTPStatusError|APIConnectionError|APIStatusError|InternalServerError|ServiceUnavailableError|RateLimitError|AuthenticationError|PermissionDeniedError|ConnectException|UnknownHostException|SQLException|DatabaseError|OperationalError|SecurityException|UnauthorizedAccessException|AssertionError|FetchError|AxiosError)$'), category: 'runtime_error', subtype: null },
];

/** Evidence that arguments failed validation, without saying how. Checked last, below every specific wording. */
const VAGUE_ARGUMENT_RULES: MessageRule[] = [
  { name: 'validation-without-detail', message: rx('Tool input validation error|did not match expected schema|\\bInvalid (?:arguments|params|parameters|input|request parameters)\\b|\\bvalidation (?:error|failed)\\b|\\binvalid_(?:arguments|params|request_error)\\b|-32602\\b|\\bUnprocessable Entity\\b|\\bbad (?:arguments|parameters)\\b|\\bschema validation\\b'), category: 'argument_mismatch', subtype: null },
  { name: 'validation-type', errorType: rx('^(?:ValidationError|ZodError|ToolInputParsingException|ArgumentException|IllegalArgumentException|InvalidArgumentException|InvalidParams|ArgumentError)$'), category: 'argument_mismatch', subtype: null },
];

const ORDERED_RULES: readonly MessageRule[] = [
  ...UNKNOWN_TOOL_RULES,
  ...MALFORMED_RULES,
  ...UNKNOWN_ARGUMENT_RULES,
  ...MISSING_ARGUMENT_RULES,
  ...MALFORMED_SHAPE_RULES,
  ...ENCODED_FORMAT_RULES,
  ...STORAGE_OVERFLOW_RULES,
  ...TYPE_MISMATCH_RULES,
  ...NOT_IN_ENUM_RULES,
  ...INVALID_FORMAT_RULES,
  ...COMPUTATION_LIMIT_RULES,
  ...DECLARED_LIMIT_RULES,
  ...OVERFLOW_RULES,
  ...TIMEOUT_RULES,
  ...RUNTIME_RULES,
  ...LATE_RANGE_RULES,
  ...VAGUE_ARGUMENT_RULES,
];

/**
 * Every rule in precedence order (see the header comment). A rule that looks only at the exception type comes after
 * every wording: "FormatException: String '31/31' was not recognized as a valid DateTime" is a format problem first.
 */
export const MESSAGE_RULES: readonly MessageRule[] = [
  ...ORDERED_RULES.filter((rule) => rule.message !== undefined),
  ...ORDERED_RULES.filter((rule) => rule.message === undefined),
];
