import { compileArgumentSchema } from './argument-schema';
import { diagnose } from './categorizer';
import type { DiagnosisInput } from './diagnosis.types';

// diagnose with the arguments and a registered schema as evidence beside the message: which evidence decides, and
// what the arguments the call sent say about a message. The message alone: message-wordings.spec.ts.

describe('diagnose', () => {
  const integerNumberSchema = compileArgumentSchema({
    type: 'object',
    properties: { number: { type: 'integer' } },
    required: ['number'],
  });
  const factorialSchema = compileArgumentSchema({
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, maximum: 20 } },
    required: ['n'],
    additionalProperties: false,
  });
  const failed = (message: string, type: string | null = null) => ({ type, message });

  it('reads {numbers:[1,2]} against {number: integer} as one renamed argument sent as an array', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1, 2] },
      error: failed('Tool execution failed'),
      schema: integerNumberSchema,
    });
    expect(diagnosis).toEqual({
      category: 'argument_mismatch',
      subtype: 'unknown_argument',
      argumentPath: '/numbers',
      evidence: 'schema',
      wrongArgument: 'numbers',
      intendedArgument: 'number',
      offendingValue: null,
      arrayForScalar: true,
    });
  });

  it.each([
    "Function execution failed: Missing number argument. Expected: 'number', 'n', 'num', 'value', or 'integer'. Received: numbers",
    'Error: missing `number` parameter',
    "ToolError: Missing 'number' field in input",
  ])('reads a tool naming its missing argument between the words, without a schema, as the rename it is: %s', (message) => {
    const diagnosis = diagnose({ tool: 'prime_factors', arguments: { numbers: [12, 15, 18] }, error: failed(message) });
    expect(diagnosis).toMatchObject({
      category: 'argument_mismatch',
      subtype: 'unknown_argument',
      argumentPath: '/numbers',
      wrongArgument: 'numbers',
      intendedArgument: 'number',
      arrayForScalar: true,
    });
  });

  it('does not read the words of "missing required argument" as an argument name', () => {
    const diagnosis = diagnose({ tool: 'f', arguments: { b: 1 }, error: failed('Missing required argument') });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath: null });
  });

  it('lets the schema decide over a contradicting message', () => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: { n: 25 }, error: failed('connect ECONNREFUSED'), schema: factorialSchema });
    expect(diagnosis).toMatchObject({
      category: 'out_of_range',
      subtype: 'above_maximum',
      argumentPath: '/n',
      offendingValue: 25,
      evidence: 'schema',
    });
  });

  it('falls through to the message when the schema accepts the arguments', () => {
    const openFactorial = compileArgumentSchema({ type: 'object', properties: { n: { type: 'integer' } } });
    const diagnosis = diagnose({
      tool: 'factorial',
      arguments: { n: 25 },
      error: failed('Factorial calculation overflow'),
      schema: openFactorial,
    });
    expect(diagnosis).toMatchObject({ category: 'overflow', evidence: 'message', offendingValue: 25 });
  });

  it('treats unparseable argument text as malformed when a schema is registered', () => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: '{"n": ', error: failed('Tool execution failed'), schema: factorialSchema });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'malformed_arguments', evidence: 'schema' });
  });

  it.each([
    ['n must be <= 20', 'out_of_range', 'above_maximum'],
    ['factorial overflow for n > 20', 'overflow', null],
    ['n must be <= 20 to avoid overflow', 'out_of_range', 'above_maximum'],
    ['ArithmeticException: integer overflow', 'overflow', null],
    ['Error: get_wether is not a valid tool, try one of [get_weather].', 'unknown_tool', null],
    ['MCP error -32602: Tool get_wether not found', 'unknown_tool', null],
    ['RuntimeError: backend failed: ReadTimeout while calling search', 'timeout', null],
    ['Request failed with status code 503', 'runtime_error', null],
    ['Tool execution failed', 'unknown', null],
  ] as const)('categorizes %j as %s/%s', (message, category, subtype) => {
    const diagnosis = diagnose({ tool: 'factorial', arguments: { n: 25 }, error: failed(message) });
    expect([diagnosis.category, diagnosis.subtype]).toEqual([category, subtype]);
  });

  it('places a zod 4 issue that names no argument on the one argument of the type it says arrived', () => {
    const diagnosis = diagnose({
      tool: 'factorial',
      arguments: { n: '5', verbose: true },
      error: failed('Invalid input: expected number, received string'),
    });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'type_mismatch', argumentPath: '/n' });
  });

  it('places a bare "not one of the options" on the one enum the schema declares, and reads an array there as the wrong type', () => {
    const unitSchema = compileArgumentSchema({
      type: 'object',
      properties: { city: { type: 'string' }, unit: { type: ['string', 'array'], enum: ['celsius', 'fahrenheit', ['celsius']] } },
    });
    const diagnosis = diagnose({
      tool: 'get_weather',
      arguments: { city: 'Paris', unit: ['kelvin'] },
      error: failed('Invalid option: expected one of "celsius"|"fahrenheit"'),
      schema: unitSchema,
    });
    expect(diagnosis).toMatchObject({ category: 'out_of_range', subtype: 'not_in_enum', argumentPath: '/unit', evidence: 'schema' });
  });

  it('reads `value` sent where the schema requires `x` as a rename although the names share nothing', () => {
    const squareRootSchema = compileArgumentSchema({ type: 'object', properties: { x: { type: 'number', minimum: 0 } }, required: ['x'] });
    const diagnosis = diagnose({
      tool: 'square_root',
      arguments: { value: 12.5 },
      error: failed("data must have required property 'x'"),
      schema: squareRootSchema,
    });
    expect(diagnosis).toMatchObject({ subtype: 'unknown_argument', wrongArgument: 'value', intendedArgument: 'x' });
  });

  it('keeps a missing argument missing when the only undeclared argument cannot hold its type', () => {
    const emailSchema = compileArgumentSchema({
      type: 'object',
      properties: { to: { type: 'string' }, subject: { type: 'string' } },
      required: ['to', 'subject'],
    });
    const diagnosis = diagnose({
      tool: 'send_email',
      arguments: { subject: 'Hi', verbose: true },
      error: failed('Tool execution failed'),
      schema: emailSchema,
    });
    expect(diagnosis).toMatchObject({ subtype: 'unknown_argument', wrongArgument: 'verbose' });
    const withoutSchema = diagnose({
      tool: 'send_email',
      arguments: { subject: 'Hi', verbose: true },
      error: failed("Missing required argument 'to'"),
    });
    expect(withoutSchema).toMatchObject({ subtype: 'missing_argument', argumentPath: '/to' });
  });

  it.each([
    ['{"status": "Failed", "message": "No function named get_wether", "time": "2025-06-02 09:14:07 AM UTC+0000"}', 'unknown_tool'],
    ['{"status": "Failed", "message": "Tool not found", "time": "2025-06-02 09:14:07 AM UTC+0000"}', 'unknown_tool'],
    [
      "Error code: 400 - {'error': {'message': \"Tool choice 'get_wether' not found in 'tools' parameter.\", 'type': 'invalid_request_error'}}",
      'unknown_tool',
    ],
    [
      '805CAF686E7F0000:error:0A00010B:SSL routines:ssl3_get_record:wrong version number:../deps/openssl/ssl3_record.c:350:',
      'runtime_error',
    ],
    ['Error: This socket has been ended by the other party', 'runtime_error'],
  ] as const)('reads %j as %s', (message, category) => {
    expect(diagnose({ tool: 'get_wether', arguments: { city: 'Paris' }, error: failed(message) }).category).toBe(category);
  });

  it('unwraps a LangGraph invocation error and reads the pydantic loc line and printed kwargs', () => {
    const message =
      "Error invoking tool 'factorial' with kwargs {'n': 25} with error:\n n: Input should be less than or equal to 20\n Please fix the error and try again.";
    const diagnosis = diagnose({ tool: 'factorial', arguments: undefined, error: failed(message) });
    expect(diagnosis).toMatchObject({ category: 'out_of_range', subtype: 'above_maximum', argumentPath: '/n', offendingValue: 25 });
  });

  it.each([
    ['Error: 1 validation error for square\nn\n  Field required [type=missing]\n \n\t\n Please fix your mistakes.', '/n'],
    ["Error invoking tool 'square' with kwargs {} with error:\n n: Field required\n\n\n Please fix the error and try again  ", '/n'],
  ])('peels a closing LangGraph sentence after blank lines: %j', (message, argumentPath) => {
    const diagnosis = diagnose({ tool: 'square', arguments: {}, error: failed(message) });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'missing_argument', argumentPath });
  });

  it('names the parameter of a .NET ArgumentNullException as the missing argument', () => {
    const diagnosis = diagnose({
      tool: 'send',
      arguments: {},
      error: failed("Value cannot be null. (Parameter 'recipient')", 'ArgumentNullException'),
    });
    expect(diagnosis).toMatchObject({ subtype: 'missing_argument', argumentPath: '/recipient' });
  });

  it('reports the unexpected keyword argument as the wrong argument', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1, 2] },
      error: failed("square() got an unexpected keyword argument 'numbers'", 'TypeError'),
    });
    expect(diagnosis).toMatchObject({ subtype: 'unknown_argument', wrongArgument: 'numbers', argumentPath: '/numbers' });
  });

  it.each([
    ['a null input', null],
    ['a number as input', 42],
    ['an error without a message', { tool: 'x', arguments: {}, error: {} }],
    ['a non-string message', { tool: 'x', arguments: {}, error: { message: { nested: [1, 2] } } }],
    ['a huge message', { tool: 'x', arguments: {}, error: { message: 'a'.repeat(2_000_000) } }],
    ['a backtracking bait', { tool: 'x', arguments: {}, error: { message: `${'must be '.repeat(20_000)}!` } }],
    [
      'a schema whose validate throws',
      {
        tool: 'x',
        arguments: {},
        error: { message: 'x' },
        schema: {
          json: {},
          validate: () => {
            throw new Error('boom');
          },
        },
      },
    ],
  ])('never throws on %s', (_label, input) => {
    const started = Date.now();
    expect(() => diagnose(input as unknown as DiagnosisInput)).not.toThrow();
    expect(Date.now() - started).toBeLessThan(1000);
  });
});

describe('a schema too expensive to check', () => {
  const tooExpensive = {
    json: { type: 'object', properties: { n: { type: 'integer' } } },
    validate: () => ({ status: 'too_expensive' }) as const,
  };

  it('leaves the category to the message and records why the schema did not decide', () => {
    const diagnosis = diagnose({
      tool: 'square',
      arguments: { numbers: [1] },
      error: { type: 'TypeError', message: "square() got an unexpected keyword argument 'numbers'" },
      schema: tooExpensive,
    });
    expect(diagnosis).toMatchObject({ category: 'argument_mismatch', subtype: 'unknown_argument', evidence: 'schema_too_expensive' });
  });

  it('is still recorded when the message tells nothing either', () => {
    const diagnosis = diagnose({ tool: 'square', arguments: { n: 1 }, error: { message: 'it broke' }, schema: tooExpensive });
    expect(diagnosis).toMatchObject({ category: 'unknown', evidence: 'schema_too_expensive' });
  });
});
describe('a registered schema with a message that says nothing', () => {
  const schema = compileArgumentSchema({
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, maximum: 20 }, unit: { enum: ['s', 'ms'] } },
    required: ['n'],
    additionalProperties: false,
  });
  const generic = ['Error', 'Tool execution failed', 'An error occurred', ''];
  const diagnoseWith = (args: unknown, message: string) =>
    diagnose({ tool: 'factorial', arguments: args, error: { type: 'Error', message }, schema });

  it.each(
    generic.flatMap((message) => [
      [message, { n: 25 }, 'out_of_range', 'above_maximum'],
      [message, { n: -1 }, 'out_of_range', 'below_minimum'],
      [message, { n: 'five' }, 'argument_mismatch', 'type_mismatch'],
      [message, {}, 'argument_mismatch', 'missing_argument'],
      [message, { n: 5, precision: 2 }, 'argument_mismatch', 'unknown_argument'],
      [message, { n: 5, unit: 'h' }, 'out_of_range', 'not_in_enum'],
      [message, '{"n": 25}', 'out_of_range', 'above_maximum'],
      [message, '{"n": ', 'argument_mismatch', 'malformed_arguments'],
    ]),
  )('lets the schema decide for %j with arguments %j: %s/%s', (message, args, category, subtype) => {
    const diagnosis = diagnoseWith(args, message as string);
    expect([diagnosis.category, diagnosis.subtype, diagnosis.evidence]).toEqual([category, subtype, 'schema']);
  });

  it.each(generic)('stays unknown when the schema accepts the arguments and the message is %j', (message) => {
    expect(diagnoseWith({ n: 5, unit: 's' }, message)).toMatchObject({ category: 'unknown', evidence: 'none' });
  });

  it('stays unknown when the call carried no arguments to check', () => {
    expect(diagnoseWith(undefined, 'Tool execution failed')).toMatchObject({ category: 'unknown' });
  });

  it('lets a telling message decide when the schema accepts the arguments', () => {
    expect(diagnoseWith({ n: 5 }, 'Read timed out')).toMatchObject({ category: 'timeout', evidence: 'message' });
  });
});
describe('a range message about a value the tool computed rather than one the call sent', () => {
  const diagnoseRange = (message: string, args: Record<string, unknown>) => {
    const diagnosis = diagnose({ tool: 'tool', arguments: args, error: { type: 'DateTimeException', message } });
    return `${diagnosis.category}/${diagnosis.subtype ?? '-'}`;
  };

  it('reads a year past the range after plusYears(2000000000) as an overflow of the computation', () => {
    expect(diagnoseRange('Invalid value for Year (valid values -999999999 - 999999999): 2000002024', { years: 2000000000 })).toBe(
      'overflow/-',
    );
  });

  it('keeps a sent value outside its range out_of_range', () => {
    expect(diagnoseRange('Invalid value for MonthOfYear (valid values 1 - 12): 13', { year: 2024, month: 13, day: 1 })).toBe(
      'out_of_range/above_maximum',
    );
  });

  it('keeps a value read from a sent string out_of_range', () => {
    expect(diagnoseRange('Invalid value for MonthOfYear (valid values 1 - 12): 13', { date: '2024-13-01', count: 1 })).toBe(
      'out_of_range/above_maximum',
    );
  });
});

describe('the value the call sent decides what a closed set or format report means', () => {
  const diagnoseValue = (message: string, args: Record<string, unknown>) => {
    const diagnosis = diagnose({ tool: 'tool', arguments: args, error: { type: 'ValidationError', message } });
    return `${diagnosis.category}/${diagnosis.subtype ?? '-'}`;
  };
  const literal = (value: string, inputType: string) =>
    `1 validation error for get_weather\nunit\n  Input should be 'celsius' or 'fahrenheit' [type=literal_error, input_value=${value}, input_type=${inputType}]`;

  it.each([
    [literal("'kelvin'", 'str'), { unit: 'kelvin' }, 'out_of_range/not_in_enum'],
    [literal('42', 'int'), { unit: 42 }, 'argument_mismatch/type_mismatch'],
    [literal("['celsius']", 'list'), { unit: ['celsius'] }, 'argument_mismatch/type_mismatch'],
    [literal('None', 'NoneType'), { unit: null }, 'argument_mismatch/missing_argument'],
    [
      '[\n  {\n    "code": "invalid_value",\n    "values": ["png", "jpeg"],\n    "path": ["format"],\n    "message": "Invalid option: expected one of \\"png\\"|\\"jpeg\\""\n  }\n]',
      { format: 7 },
      'argument_mismatch/type_mismatch',
    ],
    [
      '1 validation error for lookup_ip\nip_address\n  Input is not a valid IPv4 address [type=ip_v4_address, input_value=None, input_type=NoneType]',
      { ip_address: null },
      'argument_mismatch/missing_argument',
    ],
    [
      "1 validation error for lookup_ip\nip_address\n  Input is not a valid IPv4 address [type=ip_v4_address, input_value='999.1.1', input_type=str]",
      { ip_address: '999.1.1' },
      'out_of_range/invalid_format',
    ],
  ] as const)('reads %j with %j as %s', (message, args, expected) => {
    expect(diagnoseValue(message, args)).toBe(expected);
  });

  it('keeps a runtime closed set whose "(Parameter \'name\')" names its own parameter, not an argument', () => {
    const message = "Culture name 'xx-YY' is not supported. (Parameter 'name')";
    expect(diagnoseValue(message, { culture: 'xx-YY', amount: 10 })).toBe('out_of_range/not_in_enum');
  });
});
