import { familyOfTypeName, typeNameWords } from './exception-type-families';

describe('typeNameWords', () => {
  it.each([
    ['java.nio.file.NoSuchFileException', ['no', 'such', 'file', 'exception'], ['java', 'nio', 'file']],
    ['AI_NoSuchToolError', ['ai', 'no', 'such', 'tool', 'error'], []],
    ['ssl.SSLCertVerificationError', ['ssl', 'cert', 'verification', 'error'], ['ssl']],
    ['System.IO.IOException', ['io', 'exception'], ['system', 'io']],
    ['socket.gaierror', ['gaierror'], ['socket']],
  ])('splits %s into class and module words', (name, classWords, moduleWords) => {
    expect(typeNameWords(name)).toEqual({ classWords, moduleWords });
  });
});

describe('familyOfTypeName', () => {
  it.each([
    ['AI_NoSuchToolError', 'unknown_tool', null],
    ['ToolNotFoundException', 'unknown_tool', null],
    ['UnknownToolError', 'unknown_tool', null],
    ['java.net.SocketTimeoutException', 'timeout', null],
    ['concurrent.futures.TimeoutError', 'timeout', null],
    ['subprocess.TimeoutExpired', 'timeout', null],
    ['System.Threading.Tasks.TaskCanceledException', 'timeout', null],
    ['System.OperationCanceledException', 'timeout', null],
    ['AbortError', 'timeout', null],
    ['decimal.Overflow', 'overflow', null],
    ['java.lang.OutOfMemoryError', 'overflow', null],
    ['System.ArithmeticException', 'overflow', null],
    ['NegativeArraySizeException', 'out_of_range', 'below_minimum'],
    ['java.nio.charset.UnsupportedCharsetException', 'out_of_range', 'not_in_enum'],
    ['java.time.zone.ZoneRulesException', 'out_of_range', 'not_in_enum'],
    ['zoneinfo._common.ZoneInfoNotFoundError', 'out_of_range', 'not_in_enum'],
    ['System.Globalization.CultureNotFoundException', 'out_of_range', 'not_in_enum'],
    ['java.util.regex.PatternSyntaxException', 'out_of_range', 'invalid_format'],
    ['java.net.URISyntaxException', 'out_of_range', 'invalid_format'],
    ['java.util.UnknownFormatConversionException', 'out_of_range', 'invalid_format'],
    ['re.error', 'out_of_range', 'invalid_format'],
    ['PermissionError', 'runtime_error', null],
    ['java.nio.file.AccessDeniedException', 'runtime_error', null],
    ['System.UnauthorizedAccessException', 'runtime_error', null],
    ['System.Security.SecurityException', 'runtime_error', null],
    ['java.lang.IllegalStateException', 'runtime_error', null],
    ['System.InvalidOperationException', 'runtime_error', null],
    ['UnsupportedOperationException', 'runtime_error', null],
    ['NotImplementedError', 'runtime_error', null],
    ['System.NotSupportedException', 'runtime_error', null],
    ['java.io.FileNotFoundException', 'runtime_error', null],
    ['FileExistsError', 'runtime_error', null],
    ['java.nio.file.DirectoryNotEmptyException', 'runtime_error', null],
    ['socket.gaierror', 'runtime_error', null],
    ['ssl.SSLCertVerificationError', 'runtime_error', null],
    ['sqlite3.ProgrammingError', 'runtime_error', null],
    ['zipfile.BadZipFile', 'runtime_error', null],
    ['java.util.ConcurrentModificationException', 'runtime_error', null],
    ['java.util.concurrent.RejectedExecutionException', 'runtime_error', null],
    ['ChildProcessError', 'runtime_error', null],
  ])('reads %s as %s/%s', (name, category, subtype) => {
    expect(familyOfTypeName(name)).toMatchObject({ category, subtype });
  });

  it.each([
    'Error',
    'Exception',
    'RuntimeError',
    'java.lang.RuntimeException',
    'ValueError',
    'TypeError',
    'ToolError',
    'ToolException',
    'java.util.concurrent.ExecutionException',
    'java.util.concurrent.CompletionException',
    'System.AggregateException',
    'asyncio.exceptions.CancelledError',
    'java.util.concurrent.CancellationException',
    'ModelBehaviorError',
  ])('leaves the generic or wrapping name %s undecided', (name) => {
    expect(familyOfTypeName(name)).toBeNull();
  });
});
