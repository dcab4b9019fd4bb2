import {
  applyJsonPatch,
  FixFinding,
  foldSentences,
  isFixCarried,
  JsonPatchOperation,
  RegisteredDefinition,
  sourceFixOf,
} from './source-fix';
import { toolSnippet } from './tool-snippet';

const FACTORIAL: RegisteredDefinition = {
  name: 'factorial',
  version: 3,
  description: 'Compute the factorial of one integer, e.g. {"n": 5}',
  parameters: {
    type: 'object',
    properties: { n: { type: 'integer', minimum: 0, description: 'The integer.' } },
    required: ['n'],
    additionalProperties: false,
  },
};

const finding = (kind: string, text: string, evidence: Record<string, unknown> = {}): FixFinding => ({
  recommendationId: null,
  warningId: null,
  kind,
  text,
  evidence,
});

const limit = (bound: 'upper' | 'lower', value: number, isInclusive: boolean) =>
  finding('learned_limit', "'n' above 20 fails (overflow).", {
    learnedLimit: { argumentPath: '/n', bound, value, isInclusive, reason: 'overflow' },
  });

describe('sourceFixOf', () => {
  it.each<[string, FixFinding, JsonPatchOperation]>([
    ['the last working value as maximum', limit('upper', 20, false), { op: 'add', path: '/properties/n/maximum', value: 20 }],
    ['one below the failing integer as maximum', limit('upper', 21, true), { op: 'add', path: '/properties/n/maximum', value: 20 }],
    ['a replaced minimum on the lower side', limit('lower', 2, false), { op: 'replace', path: '/properties/n/minimum', value: 2 }],
  ])('writes a learned limit as %s', (_case, given, operation) => {
    const fix = sourceFixOf(FACTORIAL, [given]);
    expect(fix.schemaPatch).toEqual([operation]);
    expect(fix.findings).toEqual([expect.objectContaining({ change: 'schema', patch: [operation] })]);
    expect(fix.parameters).toEqual(applyJsonPatch(FACTORIAL.parameters, [operation]));
    // the schema says it: the description does not repeat it
    expect(fix.description.rewritten).toBe(FACTORIAL.description);
  });

  it('renames a property models consistently call by another name, in properties and required', () => {
    const schema = { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string' } }, required: ['unit', 'city'] };
    const rename = finding('wrong_argument_name', "Do not pass 'location'. The parameter is 'city'.", {
      wrongArgument: 'location',
      intendedArgument: 'city',
      arrayForScalarCount: 0,
    });
    const fix = sourceFixOf({ ...FACTORIAL, name: 'weather', parameters: schema }, [rename]);
    expect(fix.schemaPatch).toEqual([
      { op: 'move', from: '/properties/city', path: '/properties/location' },
      { op: 'test', path: '/required/1', value: 'city' },
      { op: 'replace', path: '/required/1', value: 'location' },
    ]);
    expect(fix.parameters).toEqual({
      type: 'object',
      properties: { unit: { type: 'string' }, location: { type: 'string' } },
      required: ['unit', 'location'],
    });
    expect(isFixCarried(rename, { ...FACTORIAL, parameters: fix.parameters })).toBe(true);
  });

  it('does not rename when models send an array for a scalar, or when the used name needs review: the sentence is folded instead', () => {
    const arrays = finding('wrong_argument_name', "Do not pass 'numbers'. The parameter is 'n'.", {
      wrongArgument: 'numbers',
      intendedArgument: 'n',
      arrayForScalarCount: 3,
    });
    const odd = finding('wrong_argument_name', 'Do not pass the name quoted here.', {
      wrongArgument: 'n m',
      intendedArgument: 'n',
      arrayForScalarCount: 0,
      requiresReview: 'argument name is not a plain identifier',
    });
    const fix = sourceFixOf(FACTORIAL, [odd, arrays]);
    expect(fix.schemaPatch).toEqual([]);
    expect(fix.requiresReview).toBe(true);
    expect(fix.description.rewritten).toBe(
      "Compute the factorial of one integer, e.g. {\"n\": 5}. Do not pass 'numbers'. The parameter is 'n'. Do not pass the name quoted here.",
    );
  });

  it('folds description findings as sentences in a fixed order whatever order they come in, and says how a schema proposal is fixed', () => {
    const findings = [
      finding('schema_quality', 'Example call: {"n":5}'),
      finding('missing_argument', "Always pass 'n' (an integer)."),
      finding('schema_quality', "Declare 'n' as enum.", {
        proposalOnly: 'a schema change',
        finding: { fix: 'Declare "maxItems" on \'n\'.' },
      }),
    ];
    const forward = sourceFixOf(FACTORIAL, findings);
    expect(sourceFixOf(FACTORIAL, [...findings].reverse())).toEqual(forward);
    expect(forward.description.rewritten).toBe(
      'Compute the factorial of one integer, e.g. {"n": 5}. Always pass \'n\' (an integer). Example call: {"n":5}.',
    );
    expect(forward.findings.map((f) => f.change)).toEqual(['description', 'by_hand', 'description']);
    expect(forward.findings[1]).toMatchObject({ instruction: 'Declare "maxItems" on \'n\'.' });
  });

  it('leaves out what the registered definition already carries', () => {
    const bounded = {
      ...FACTORIAL,
      parameters: applyJsonPatch(FACTORIAL.parameters, [{ op: 'add', path: '/properties/n/maximum', value: 20 }]),
    };
    expect(isFixCarried(limit('upper', 20, false), bounded)).toBe(true);
    expect(isFixCarried(limit('upper', 20, false), FACTORIAL)).toBe(false);
    // a looser bound does not carry it
    const loose = {
      ...FACTORIAL,
      parameters: applyJsonPatch(FACTORIAL.parameters, [{ op: 'add', path: '/properties/n/maximum', value: 25 }]),
    };
    expect(isFixCarried(limit('upper', 20, false), loose)).toBe(false);
    const sentence = finding('missing_argument', "Always pass 'n' (an integer).");
    expect(isFixCarried(sentence, { ...FACTORIAL, description: "Compute a factorial.  always pass 'n' (an integer)." })).toBe(true);
    expect(sourceFixOf(bounded, [limit('upper', 20, false)]).findings).toEqual([]);
  });
});

describe('foldSentences', () => {
  it('ends the description as a sentence and does not repeat a sentence it holds', () => {
    expect(foldSentences('Adds numbers', ['Pass two numbers.', 'Adds numbers.'])).toBe('Adds numbers. Pass two numbers.');
    expect(foldSentences('Adds numbers.', [])).toBe('Adds numbers.');
    expect(foldSentences('', ['- Pass two numbers'])).toBe('Pass two numbers.');
  });
});

describe('applyJsonPatch', () => {
  it('refuses a failing test operation and a path with no parent', () => {
    expect(() => applyJsonPatch({ required: ['a'] }, [{ op: 'test', path: '/required/0', value: 'b' }])).toThrow('test failed');
    expect(() => applyJsonPatch({}, [{ op: 'add', path: '/properties/n/maximum', value: 1 }])).toThrow('no parent');
  });
});

describe('toolSnippet', () => {
  it('writes the registered shapes as JSON', () => {
    const tool = { name: 'factorial', description: 'Factorial.', parameters: FACTORIAL.parameters };
    expect(JSON.parse(toolSnippet('openai', tool).text)).toEqual({ type: 'function', function: tool });
    expect(JSON.parse(toolSnippet('anthropic', tool).text)).toEqual({
      name: 'factorial',
      description: 'Factorial.',
      input_schema: tool.parameters,
    });
    expect(JSON.parse(toolSnippet('mcp', tool).text)).toEqual({
      name: 'factorial',
      description: 'Factorial.',
      inputSchema: tool.parameters,
    });
  });

  it('writes zod source with every string as a JSON literal, and names the keywords it leaves out', () => {
    const snippet = toolSnippet('zod', {
      name: 'weather',
      description: "It's */ `raining`",
      parameters: {
        type: 'object',
        properties: {
          city: { type: 'string', maxLength: 80, description: 'The city.' },
          unit: { enum: ['c', 'f'] },
          days: { type: 'array', items: { type: 'integer', minimum: 1, exclusiveMaximum: 15 }, maxItems: 3 },
          note: { type: ['string', 'null'], format: 'email' },
        },
        required: ['city'],
        additionalProperties: false,
      },
    });
    expect(snippet).toMatchObject({ format: 'zod', language: 'typescript', notConverted: ['/properties/note/format'] });
    expect(snippet.text).toBe(
      [
        "import { z } from 'zod';",
        '',
        'export const tool = {',
        '  name: "weather",',
        '  description: "It\'s */ `raining`",',
        '  inputSchema: z.object({',
        '    "city": z.string().max(80).describe("The city."),',
        '    "unit": z.enum(["c","f"]).optional(),',
        '    "days": z.array(z.number().int().min(1).lt(15)).max(3).optional(),',
        '    "note": z.string().nullable().optional(),',
        '  }).strict(),',
        '};',
        '',
      ].join('\n'),
    );
  });
});
