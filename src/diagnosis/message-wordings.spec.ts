import { diagnose } from './categorizer';

// diagnose read from the message and its exception types alone: wrapped causes, other frameworks' wordings, the
// runtime's own words for limits, closed sets and failures of the environment.

describe('exception types and wrapped causes', () => {
  const diagnoseError = (message: string, type: string | null = null, args: unknown = { path: '/srv/report.txt' }) =>
    diagnose({ tool: 'tool', arguments: args, error: { type, message } });

  it.each([
    ['/srv/report.txt', 'java.nio.file.AccessDeniedException', 'runtime_error'],
    ['/srv/report.txt', 'NoSuchFileException', 'runtime_error'],
    ['', 'UnsupportedOperationException', 'runtime_error'],
    ['', 'System.NotSupportedException', 'runtime_error'],
    ['Queue full', 'java.lang.IllegalStateException', 'runtime_error'],
    ['', 'concurrent.futures._base.TimeoutError', 'timeout'],
    ['A task was canceled.', 'System.Threading.Tasks.TaskCanceledException', 'timeout'],
    ['The operation was canceled.', 'System.OperationCanceledException', 'timeout'],
    ["[<class 'decimal.Overflow'>]", 'decimal.Overflow', 'overflow'],
    ['utf-99', 'UnsupportedCharsetException', 'out_of_range'],
  ] as const)('decides %j with type %s by the type name: %s', (message, type, category) => {
    expect(diagnoseError(message, type).category).toBe(category);
  });

  it.each([
    ['java.nio.file.NoSuchFileException: /srv/report.txt', 'runtime_error'],
    ['java.lang.UnsupportedOperationException', 'runtime_error'],
    ['Exception in thread "main" java.util.ConcurrentModificationException', 'runtime_error'],
    ['socket.gaierror: [Errno -2] Name or service not known', 'runtime_error'],
    ['zipfile.BadZipFile: File is not a zip file', 'runtime_error'],
  ] as const)('reads the type from a "Type: message" line: %j', (message, category) => {
    expect(diagnoseError(message).category).toBe(category);
  });

  it.each([
    ['Tool execution failed', 'RuntimeError'],
    ['Something went wrong', 'Exception'],
    ['it broke', 'java.util.concurrent.ExecutionException'],
    ['asyncio.exceptions.CancelledError', null],
  ] as const)('leaves %j with the generic type %s unknown', (message, type) => {
    expect(diagnoseError(message, type).category).toBe('unknown');
  });

  it.each([
    ['java.util.concurrent.ExecutionException: java.lang.IllegalArgumentException: Illegal Capacity: -5', { size: -5 }, 'out_of_range'],
    ['java.util.concurrent.CompletionException: java.lang.UnsupportedOperationException', {}, 'runtime_error'],
    [
      'java.lang.RuntimeException: Tool execution failed\n\tat Tools.run(Tools.java:12)\nCaused by: java.nio.file.NoSuchFileException: /srv/x\n\t... 3 more',
      {},
      'runtime_error',
    ],
    [
      'System.Exception: Tool execution failed ---> System.TimeoutException: The operation has timed out.\n   at Tools.Run()',
      {},
      'timeout',
    ],
    [
      'Error: Tool execution failed\n    at run (tool.js:3:9) {\n  [cause]: RangeError: Maximum BigInt size exceeded\n      at power (tool.js:1:1)\n}',
      {},
      'overflow',
    ],
    [
      'Traceback (most recent call last):\n  File "tool.py", line 3, in mean\n    return float(total)\nOverflowError: int too large to convert to float\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File "tool.py", line 9, in run\n    raise ToolError("Tool execution failed") from error\nToolError: Tool execution failed',
      {},
      'overflow',
    ],
    [
      'Traceback (most recent call last):\n  File "tool.py", line 3, in save\n    db.commit()\nsqlite3.OperationalError: database is locked\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "tool.py", line 9, in run\n    raise ToolError("could not save")\nToolError: could not save',
      {},
      'runtime_error',
    ],
  ] as const)('decides on the root cause of %j', (message, args, category) => {
    expect(diagnoseError(message, null, args).category).toBe(category);
  });

  it('decides on the most specific cause, not simply the innermost: a missing module handled before an unknown zone', () => {
    const message =
      'Traceback (most recent call last):\n  File "zoneinfo/_common.py", line 12, in load_tzdata\n    return resources.files(package_name)\nModuleNotFoundError: No module named \'tzdata\'\n\nDuring handling of the above exception, another exception occurred:\n\nTraceback (most recent call last):\n  File "tool.py", line 4, in convert\n    zoneinfo.ZoneInfo(zone)\nzoneinfo._common.ZoneInfoNotFoundError: \'No time zone found with key Mars/Olympus\'\n\nThe above exception was the direct cause of the following exception:\n\nTraceback (most recent call last):\n  File "tool.py", line 9, in run\n    raise ToolError("conversion failed") from error\nToolError: conversion failed';
    const diagnosis = diagnoseError(message, null, { zone: 'Mars/Olympus' });
    expect([diagnosis.category, diagnosis.subtype]).toEqual(['out_of_range', 'not_in_enum']);
  });

  it('keeps the root cause when every cause is an environment failure', () => {
    const message =
      'java.lang.IllegalStateException: could not load report\nCaused by: java.nio.file.AccessDeniedException: /srv/report.txt';
    expect(diagnoseError(message).category).toBe('runtime_error');
  });

  it('lets a cause without wording decide by its type when the outer message says nothing', () => {
    const message = 'java.lang.IllegalStateException: tool failed\nCaused by: java.nio.file.DirectoryNotEmptyException: /etc';
    expect(diagnoseError(message).category).toBe('runtime_error');
  });
});

describe('tools the model asked for that are not there, in the words of other frameworks', () => {
  const categoryOf = (message: string, type: string | null = null): string =>
    diagnose({ tool: 'get_wether', arguments: { city: 'Paris' }, error: { type, message } }).category;

  it.each([
    ["Model tried to call unavailable tool 'lookup_order'. No tools are available.", null],
    ['Function lookup_order is not found in the tools_dict.', 'ValueError'],
    ['Tool lookup_order not found in the list of tools. Available tools: get_order.', 'ToolNotFoundException'],
    ["Unknown tool name: 'lookup_order'. Available tools: 'get_order'", 'ModelRetry'],
    ['Unknown tool lookup_order, should be one of: get_order, final_answer.', 'AgentToolExecutionError'],
    ["You tried to use the tool lookup_order, but it doesn't exist. You must use one of the following tools: get_order.", null],
    [
      "The plugin collection does not contain a plugin and/or function with the specified names. Plugin name - 'Orders', function name - 'lookup_order'.",
      'KeyNotFoundException',
    ],
    ['No ToolCallback found for tool name: lookup_order', 'IllegalStateException'],
    ['the function lookup_order is not among the available tools', null],
    ['Tool lookup_order is not registered in the toolbox', null],
    ['lookup_order', 'NoSuchToolError'],
    ['lookup_order', 'ToolNotFoundError'],
    ['', 'UnknownToolException'],
  ] as const)('reads %j (%s) as an unknown tool', (message, type) => {
    expect(categoryOf(message, type)).toBe('unknown_tool');
  });

  it.each([
    ['Tool execution failed: upstream service unavailable', 'runtime_error'],
    ['search tool failed: connection refused', 'runtime_error'],
    ['Tool input validation error', 'argument_mismatch'],
  ] as const)('does not read %j as an unknown tool', (message, category) => {
    expect(categoryOf(message)).toBe(category);
  });
});

describe('computation limits worded without "overflow"', () => {
  const diagnoseError = (message: string, type: string | null, args: unknown) =>
    diagnose({ tool: 'tool', arguments: args, error: { type, message } });

  it.each([
    ['Python int too large to convert to C long', 'OverflowError', { offset: 2 ** 70 }],
    ['year 10000 is out of range', 'ValueError', { year: 10000 }],
    ['date value out of range', 'OverflowError', { days: 3000000 }],
    ['timestamp out of range for platform time_t', 'OverflowError', { seconds: 1e20 }],
    ["cannot fit 'int' into an index-sized integer", 'OverflowError', { size: 1e20 }],
    ['days=1000000000; must have magnitude <= 999999999', 'OverflowError', { days: 1000000000 }],
    ['', 'MemoryError', { size: 1e13 }],
    ['BigInteger would overflow supported range', 'ArithmeticException', { exponent: 2147483647 }],
    ['Requested array size exceeds VM limit', 'OutOfMemoryError', { size: 2147483647 }],
    ['Instant exceeds minimum or maximum instant', 'DateTimeException', { seconds: 9e18 }],
    ['Value was either too large or too small for an Int32.', 'OverflowException', { value: '99999999999' }],
    ['The added or subtracted value results in an un-representable DateTime.', 'ArgumentOutOfRangeException', { days: 5e6 }],
    ['Invalid string length', 'RangeError', { count: 2 ** 30 }],
    ['Invalid array buffer length', 'RangeError', { size: 2 ** 53 }],
    ['FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory', null, { rows: 1e9 }],
    ['Invalid time value', 'RangeError', { millis: 8.65e15 }],
  ] as const)('reads %j (%s) as overflow', (message, type, args) => {
    expect(diagnoseError(message, type, args).category).toBe('overflow');
  });

  it.each([
    ['Invalid time value', 'RangeError', { date: '2024-13-45' }, 'out_of_range', 'invalid_format'],
    ['toFixed() digits argument must be between 0 and 100', 'RangeError', { digits: 200 }, 'out_of_range', 'above_maximum'],
    ['n must be <= 20 to avoid overflow', 'ValueError', { n: 25 }, 'out_of_range', 'above_maximum'],
    ['month must be in 1..12', 'ValueError', { month: 13 }, 'out_of_range', 'above_maximum'],
  ] as const)('keeps the declared domain of %j (%s) out_of_range', (message, type, args, category, subtype) => {
    const diagnosis = diagnoseError(message, type, args);
    expect([diagnosis.category, diagnosis.subtype]).toEqual([category, subtype]);
  });
});

describe('failures of the environment and of the tool itself', () => {
  const categoryOf = (message: string, type: string | null = null): string =>
    diagnose({ tool: 'tool', arguments: { path: '/srv/data' }, error: { type, message } }).category;

  it.each([
    ['database is locked', 'OperationalError'],
    ['no such table: orders', null],
    ['relation "orders" does not exist', null],
    ['[Errno 28] No space left on device', 'OSError'],
    ['ENOSPC: no space left on device, write', null],
    ["EMFILE: too many open files, open '/srv/data'", null],
    ["[Errno 16] Device or resource busy: '/mnt'", 'OSError'],
    ["[Errno 30] Read-only file system: '/srv/data'", 'OSError'],
    ["EROFS: read-only file system, open '/srv/data'", null],
    ['QueuePool limit of size 5 overflow 10 reached, connection timed out, timeout 30', 'TimeoutError'],
    ['Connection pool exhausted', null],
    ['[Errno 32] Broken pipe', 'BrokenPipeError'],
    ['[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: unable to get local issuer certificate (_ssl.c:1006)', null],
    ['certificate has expired', null],
    ['EISDIR: illegal operation on a directory, read', null],
    ["[Errno 17] File exists: '/srv/data'", 'FileExistsError'],
    ['Command failed: exit 3', null],
    ['write after end', null],
    ['dictionary changed size during iteration', 'RuntimeError'],
    ['Cannot operate on a closed database.', 'ProgrammingError'],
    ['listen EADDRINUSE: address already in use 127.0.0.1:8080', null],
    [
      'Error: Tool execution failed\n    at run (tool.js:3:9) {\n  [cause]: Error: EISDIR: illegal operation on a directory, read\n      at readFileSync (node:fs:1:1)\n}',
      null,
    ],
  ] as const)('reads %j (%s) as a runtime or time failure, not the arguments', (message, type) => {
    expect(['runtime_error', 'timeout']).toContain(categoryOf(message, type));
  });

  it.each([
    ['Error: Tool execution failed', null],
    ['ERROR: something happened', null],
    ['An error occurred while processing your request.', 'Error'],
  ] as const)('still leaves %j unknown', (message, type) => {
    expect(categoryOf(message, type)).toBe('unknown');
  });
});
describe('closed sets and patterns the runtime checks in its own words', () => {
  const subtypeOf = (message: string, type: string | null = null) => {
    const diagnosis = diagnose({ tool: 'tool', arguments: { value: 'x' }, error: { type, message } });
    return `${diagnosis.category}/${diagnosis.subtype ?? '-'}`;
  };

  it.each([
    ['unknown encoding: utf-99', 'LookupError'],
    ['unsupported hash type sha999', 'ValueError'],
    ['Invalid currency code : EURO', 'RangeError'],
    ['Invalid time zone specified: Mars/Olympus', 'RangeError'],
    ["'No time zone found with key Mars/Olympus'", 'ZoneInfoNotFoundError'],
    ['Unknown time-zone ID: Mars/Olympus', 'ZoneRulesException'],
  ] as const)('reads %j (%s) as a value outside a closed set', (message, type) => {
    expect(subtypeOf(message, type)).toBe('out_of_range/not_in_enum');
  });

  it.each([
    ['missing ), unterminated subpattern at position 0', 'error'],
    ['Invalid regular expression: /(abc/: Unterminated group', 'SyntaxError'],
    ['Unclosed group near index 4', 'PatternSyntaxException'],
    ["Unknown format code 'q' for object of type 'int'", 'ValueError'],
    ["'Q' is a bad directive in format '%Q'", 'ValueError'],
  ] as const)('reads %j (%s) as a malformed pattern or format', (message, type) => {
    expect(subtypeOf(message, type)).toBe('out_of_range/invalid_format');
  });
});
describe('.NET resource wordings', () => {
  const categoryOf = (message: string, type: string) => {
    const diagnosis = diagnose({ tool: 'tool', arguments: { value: 'x' }, error: { type, message } });
    return `${diagnosis.category}/${diagnosis.subtype ?? '-'}`;
  };

  it.each([
    ['Arrays larger than 2GB are not supported.', 'System.ArgumentOutOfRangeException', 'overflow/-'],
    ["Enum value was out of legal range. (Parameter 'mode')", 'System.ArgumentOutOfRangeException', 'out_of_range/not_in_enum'],
    ['99999 is not a supported code page.', 'System.NotSupportedException', 'out_of_range/not_in_enum'],
    [
      'The input is not a valid Base-64 string as it contains a non-base 64 character.',
      'System.FormatException',
      'out_of_range/invalid_format',
    ],
    ['Format specifier was invalid.', 'System.FormatException', 'out_of_range/invalid_format'],
    ['Function does not accept floating point Not-a-Number values.', 'System.ArithmeticException', 'out_of_range/invalid_format'],
    ["The path is empty. (Parameter 'path')", 'System.ArgumentException', 'out_of_range/below_minimum'],
    ['An item with the same key has already been added. Key: order-42', 'System.ArgumentException', 'runtime_error/-'],
  ] as const)('reads %j (%s) as %s', (message, type, expected) => {
    expect(categoryOf(message, type)).toBe(expected);
  });
});
