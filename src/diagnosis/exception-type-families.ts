import type { Category, Subtype } from './diagnosis.types';

// Exception class names say what failed even when the message says nothing ("java.nio.file.NoSuchFileException:
// /x", "UnsupportedOperationException", "TaskCanceledException"). A name is read as words (CamelCase, acronyms,
// dots, underscores: "AI_NoSuchToolError" -> ai no such tool error) and the words are matched against families, in
// the order below. The class's own words decide first; a package or module ("java.net", "sqlite3", "re") only when
// the class name alone says nothing ("sqlite3.ProgrammingError", "re.error"). Generic names (Error, Exception,
// RuntimeError, ValueError, TypeError, ToolError, and wrappers like ExecutionException) match no family: they
// leave the decision to the causes they wrap, or to nothing.

export interface TypeFamily {
  name: string;
  category: Category;
  subtype: Subtype | null;
}

type WordTest = (words: ReadonlySet<string>) => boolean;

const any =
  (...wanted: string[]): WordTest =>
  (words) =>
    wanted.some((word) => words.has(word));
const all =
  (...wanted: string[]): WordTest =>
  (words) =>
    wanted.every((word) => words.has(word));
const either =
  (...tests: WordTest[]): WordTest =>
  (words) =>
    tests.some((test) => test(words));
const both =
  (first: WordTest, second: WordTest): WordTest =>
  (words) =>
    first(words) && second(words);

const NOT_THERE = either(all('no', 'such'), all('not', 'found'), any('notfound', 'unknown', 'unavailable', 'missing', 'undefined'));

const FAMILIES: readonly (TypeFamily & { test: WordTest })[] = [
  // NoSuchToolError, ToolNotFoundException, UnknownToolError, FunctionNotFoundError
  { name: 'tool-not-there', category: 'unknown_tool', subtype: null, test: both(any('tool', 'function'), NOT_THERE) },
  // TimeoutError, SocketTimeoutException, TimeoutExpired, DeadlineExceeded, TaskCanceledException (HttpClient's
  // timeout), OperationCanceledException, AbortError. Python's CancelledError and Java's CancellationException are
  // explicit cancellations, not time limits: they stay out.
  {
    name: 'time-limit',
    category: 'timeout',
    subtype: null,
    test: either(any('timeout', 'timeouts', 'deadline', 'canceled', 'abort', 'aborted'), all('timed', 'out')),
  },
  // OverflowError, decimal.Overflow, OutOfMemoryError, MemoryError, RecursionError, ArithmeticException
  {
    name: 'computation-limit',
    category: 'overflow',
    subtype: null,
    test: either(any('overflow', 'underflow', 'stackoverflow', 'memory', 'heap', 'recursion', 'arithmetic', 'floating')),
  },
  // NegativeArraySizeException
  { name: 'negative-value', category: 'out_of_range', subtype: 'below_minimum', test: any('negative') },
  // UnsupportedCharsetException, ZoneRulesException, ZoneInfoNotFoundError, CultureNotFoundException,
  // NoSuchAlgorithmException, UnsupportedEncodingException
  {
    name: 'closed-set',
    category: 'out_of_range',
    subtype: 'not_in_enum',
    test: any('charset', 'encoding', 'zone', 'timezone', 'locale', 'culture', 'currency', 'algorithm', 'enum'),
  },
  // PatternSyntaxException, URISyntaxException, UnknownFormatConversionException, MissingFormatArgumentException,
  // UriFormatException, java.text.ParseException; JSON names were read before (malformed arguments)
  {
    name: 'malformed-pattern-or-format',
    category: 'out_of_range',
    subtype: 'invalid_format',
    test: either(
      any('pattern', 'regex', 'syntax', 'uri', 'url', 'uuid', 'guid', 'parse'),
      both(
        any('format'),
        any('unknown', 'illegal', 'missing', 'conversion', 'flags', 'width', 'precision', 'duplicate', 'mismatched', 'specifier'),
      ),
    ),
  },
  // Failures of the environment and of the tool's own state: permissions, files, network, databases, processes,
  // threads, unsupported or unimplemented operations, null references, reflection and imports.
  {
    name: 'environment-or-state',
    category: 'runtime_error',
    subtype: null,
    test: either(
      any(
        'permission',
        'access',
        'denied',
        'unauthorized',
        'security',
        'forbidden',
        'authentication',
        'authorization',
        'auth',
        'credential',
        'credentials',
        'state',
        'unsupported',
        'io',
        'eof',
        'file',
        'directory',
        'filesystem',
        'socket',
        'connection',
        'connect',
        'network',
        'host',
        'dns',
        'gaierror',
        'herror',
        'http',
        'ssl',
        'tls',
        'certificate',
        'cert',
        'database',
        'sql',
        'sqlite',
        'db',
        'operational',
        'integrity',
        'lock',
        'locked',
        'busy',
        'closed',
        'broken',
        'pipe',
        'resource',
        'quota',
        'throttling',
        'throttled',
        'overloaded',
        'service',
        'server',
        'unavailable',
        'internal',
        'process',
        'thread',
        'modification',
        'monitor',
        'rejected',
        'pointer',
        'reference',
        'attribute',
        'import',
        'module',
        'class',
        'method',
        'field',
        'linkage',
        'assertion',
        'zip',
        'archive',
        'stream',
        'channel',
        'interrupted',
        'child',
      ),
      all('not', 'implemented'),
      all('not', 'supported'),
      all('invalid', 'operation'),
      any('notimplemented', 'notsupported'),
    ),
  },
];

/** Modules and packages whose every exception is one kind of failure, for class names that say nothing. */
const MODULE_FAMILIES: readonly (TypeFamily & { test: WordTest })[] = [
  { name: 'regex-module', category: 'out_of_range', subtype: 'invalid_format', test: any('re', 'regex') },
  { name: 'time-zone-module', category: 'out_of_range', subtype: 'not_in_enum', test: any('zoneinfo', 'zone', 'pytz', 'charset') },
  {
    name: 'environment-module',
    category: 'runtime_error',
    subtype: null,
    test: any(
      'io',
      'nio',
      'file',
      'net',
      'socket',
      'ssl',
      'http',
      'urllib',
      'requests',
      'httpx',
      'aiohttp',
      'sqlite',
      'sql',
      'psycopg',
      'zipfile',
      'tarfile',
      'subprocess',
      'shutil',
      'os',
    ),
  },
];

const MAX_NAME_CHARS = 300;

/** "java.nio.file.NoSuchFileException" -> class words [no, such, file, exception], module words [java, nio, file]. */
export function typeNameWords(qualifiedName: string): { classWords: string[]; moduleWords: string[] } {
  const segments = qualifiedName.slice(0, MAX_NAME_CHARS).split('.');
  const className = segments.pop() ?? '';
  const wordsOf = (text: string): string[] =>
    (text.match(/[A-Z]{2,}(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+/g) ?? []).map((word) => word.toLowerCase());
  return { classWords: wordsOf(className), moduleWords: segments.flatMap(wordsOf) };
}

/** The family an exception type name belongs to, or null when its name tells nothing. */
export function familyOfTypeName(qualifiedName: string): TypeFamily | null {
  const { classWords, moduleWords } = typeNameWords(qualifiedName);
  const classWordSet = new Set(classWords);
  const byClass = FAMILIES.find((family) => family.test(classWordSet));
  if (byClass) return { name: byClass.name, category: byClass.category, subtype: byClass.subtype };
  const moduleWordSet = new Set(moduleWords);
  const byModule = MODULE_FAMILIES.find((family) => family.test(moduleWordSet));
  return byModule ? { name: byModule.name, category: byModule.category, subtype: byModule.subtype } : null;
}
