// The exceptions a message reports: their names, the chain of causes (Python, Java, Node, .NET), stack frames dropped.

const MAX_CAUSES = 8;

/** Exception class names at line starts, after "Caused by:", or in a repr: the types the runtime reported. */
export function exceptionNamesIn(text: string): string[] {
  const names: string[] = [];
  const pattern =
    /(?:^|Caused by:\s?|\bthread "[^"\n]{0,60}" )\s{0,8}(?:[A-Za-z_$][\w$]{0,60}\.){0,8}([A-Z][\w$]{0,60}(?:Error|Exception|Timeout|Exit|Fault|Interrupt))\b/gm;
  for (const match of text.matchAll(pattern)) {
    names.push(match[1]);
    if (names.length >= 10) break;
  }
  return names;
}

export function lastDottedSegment(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

/** Drops Python and Java/.NET stack frames: their file and function names would otherwise match rule words. */
export function withoutStackFrames(text: string): string {
  // [ \t] rather than \s: with the m flag, \s+ would run across every following newline from each line start
  if (!/^[ \t]+(?:File "|at )|^Traceback \(most recent call last\)/m.test(text)) return text;
  const lines = text.split('\n');
  const kept: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index];
    if (/^Traceback \(most recent call last\)|^\s+\.\.\. \d+ more|^\s*\^+\s*$/.test(line)) continue;
    if (/^\s+File "/.test(line)) {
      // The indented source line that follows a Python frame belongs to the frame.
      if (index + 1 < lines.length && /^\s{4,}\S/.test(lines[index + 1])) index++;
      continue;
    }
    if (/^\s+at /.test(line)) continue;
    kept.push(line);
  }
  return kept.join('\n');
}

export interface Cause {
  /** The message with its exception-name prefixes removed. */
  text: string;
  /** Exception names as printed (qualified when the runtime qualified them), outermost first. */
  typeNames: string[];
}

// Python prints the root cause first, then these separators, then the exception it led to.
const PYTHON_CHAIN_SEPARATOR =
  /^(?:The above exception was the direct cause of the following exception:|During handling of the above exception, another exception occurred:)\s*$/;
// Java "Caused by:", Node util.inspect "[cause]:", .NET " ---> " inner exceptions: the cause follows.
const CAUSE_MARKER = /^\s{0,12}(?:Caused by:|\[cause\]:)\s?/;
const DOTNET_INNER = ' ---> ';

/**
 * Splits a message into the exceptions it chains, innermost (root cause) first. A single exception gives one cause.
 * "ExecutionException: java.lang.IllegalArgumentException: Illegal Capacity: -5" is one cause with two names: the
 * outer prefix is a wrapper that only prints its cause.
 */
export function readCauseChain(text: string): Cause[] {
  const lines = text.split('\n');
  const pythonChunks: string[][] = [[]];
  for (const line of lines) {
    if (PYTHON_CHAIN_SEPARATOR.test(line.trim())) pythonChunks.push([]);
    else pythonChunks[pythonChunks.length - 1].push(line);
  }
  let printed: string[];
  if (pythonChunks.length > 1) {
    // Root first already; each chunk's exception line is its last non-blank text.
    printed = pythonChunks.map((chunk) => chunk.join('\n').trim());
  } else {
    printed = [];
    let current: string[] = [];
    for (const line of lines) {
      if (CAUSE_MARKER.test(line) && current.length > 0) {
        printed.push(current.join('\n'));
        current = [];
      }
      current.push(line.replace(CAUSE_MARKER, ''));
    }
    printed.push(current.join('\n'));
    printed = printed.flatMap((part) => part.split(DOTNET_INNER)).reverse();
  }
  const causes = printed
    .filter((part) => part.trim() !== '')
    .slice(0, MAX_CAUSES)
    .map(readCause);
  return causes.length > 0 ? causes : [{ text: '', typeNames: [] }];
}

/** Peels "pkg.Outer: pkg.Inner: message" prefixes; names are kept outermost first. */
function readCause(part: string): Cause {
  let text = part.trim();
  const typeNames: string[] = [];
  for (let depth = 0; depth < MAX_CAUSES; depth++) {
    const prefix = EXCEPTION_PREFIX.exec(text);
    if (!prefix) break;
    typeNames.push(prefix[1]);
    text = text.slice(prefix[0].length).trim();
  }
  return { text: stripTypePrefix(text), typeNames: typeNames.reverse() };
}

// An exception name at the head of a message, qualified or not ("java.nio.file.NoSuchFileException",
// "socket.gaierror", "re.error", "zipfile.BadZipFile"). It must end like an exception class: "strconv.Atoi: parsing"
// is a Go function, not a type.
const EXCEPTION_PREFIX =
  /^(?:Uncaught |Exception in thread "[^"\n]{0,60}" )?((?:[A-Za-z_$][\w$]{0,60}\.){0,8}(?:[A-Z][\w$]{0,60}(?:Error|Exception|Timeout|Exit|Fault|Interrupt|Overflow|Expired|File|Empty|Full)|[a-z]{0,20}(?:error|timeout)))(?: \[[A-Z_]{1,40}\])?(?::(?:\s|$)|$)/;

/** "ValueError: n must be positive" -> "n must be positive"; the name is already among the type names. */
function stripTypePrefix(text: string): string {
  return text.replace(
    /^(?:Uncaught |Exception in thread "[^"\n]{0,60}" )?(?:[A-Za-z_$][\w$]{0,60}\.){0,8}[A-Z]?[\w$]{0,60}(?:Error|Exception)(?: \[[A-Z_]{1,40}\])?:\s*/,
    '',
  );
}
