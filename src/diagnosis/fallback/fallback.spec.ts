import { diagnose } from '../categorizer';
import { familyOf } from './family';
import { extractFeatures } from './features';
import { FALLBACK_CONFIDENCE_THRESHOLD, SHIPPED_FALLBACK_MODEL, decideByModel, isMessageless } from './fallback';
import { type FallbackModel, type FallbackWeights, loadFallbackModel } from './linear-model';
import { type TrainingFixture, serializeWeights, trainFallbackModels } from './training';

/** A model that proposes one label at one confidence, whatever it reads. */
const proposing = (label: string, confidence: number): FallbackModel => ({ propose: () => ({ label, confidence }) });

const GENERIC = { tool: 'lookup', arguments: { id: 7 }, error: { type: 'Error', message: 'Tool execution failed' } };

describe('extractFeatures', () => {
  it('masks numbers and quoted values, so one wording is one set of features whatever values it carries', () => {
    const a = extractFeatures({ message: "value 25 for 'n' is above 20", type: 'ValueError', arguments: { n: 25 }, hasSchema: false });
    const b = extractFeatures({ message: 'value 3000 for "count" is above 7', type: 'ValueError', arguments: { n: 1 }, hasSchema: false });
    expect(a).toEqual(b);
    expect(a).toEqual(expect.arrayContaining(['u:value', 'b:# for', 'b:qv is', 't:value', 't:error', 's:none', 'a:one', 'v:number']));
  });

  it('reads the words of a dotted, camel-cased exception type name', () => {
    const features = extractFeatures({ message: '', type: 'System.ArgumentOutOfRangeException', arguments: undefined, hasSchema: true });
    expect(features).toEqual(['m:empty', 't:system', 't:argument', 't:out', 't:of', 't:range', 't:exception', 's:schema', 'a:absent']);
  });

  it('reads a bounded head of a huge message', () => {
    const features = extractFeatures({ message: 'word '.repeat(100_000), type: null, arguments: 'not json', hasSchema: false });
    expect(features).toEqual(['u:word', 'b:word word', 't:none', 's:none', 'a:text']);
  });
});

describe('familyOf', () => {
  it.each([
    [{ source: 'gen:ajv' }, 'ajv'],
    [{ source: 'framework:vercel/ai@ed857f50f1:packages/ai/src/error/invalid-tool-input-error.ts' }, 'vercel/ai'],
    [{ source: 'framework:vercel/ai:no-such-tool-error.ts' }, 'vercel/ai'],
    [{ source: 'provider:thread:groq tool_use_failed (quoted in public code, see README)' }, 'groq'],
    [{ source: 'provider:letta-ai/letta@b76da9092:letta/agent.py' }, 'letta-ai/letta'],
    [{ source: 'gen:ajv', family: 'ajv-8' }, 'ajv-8'],
    [{ source: 'gen:zod4', family: ' ' }, 'zod4'],
  ])('reads %j as family %s', (fixture, family) => {
    expect(familyOf(fixture)).toBe(family);
  });
});

describe('diagnose with the fallback model', () => {
  it('lets the model decide what no rule explains, at or above the threshold, with evidence "model" and its confidence', () => {
    const diagnosis = diagnose({ ...GENERIC, arguments: { n: 200 } }, proposing('overflow/-', FALLBACK_CONFIDENCE_THRESHOLD));
    expect(diagnosis).toMatchObject({ category: 'overflow', subtype: null, evidence: 'model', offendingValue: 200, argumentPath: '/n' });
    expect(diagnosis.modelConfidence).toBe(FALLBACK_CONFIDENCE_THRESHOLD);
  });

  it('leaves a failure unknown when the model is below its threshold or proposes unknown', () => {
    const below = diagnose(GENERIC, proposing('runtime_error/-', FALLBACK_CONFIDENCE_THRESHOLD - 0.001));
    const unknown = diagnose(GENERIC, proposing('unknown/-', 0.99));
    expect([below, unknown]).toEqual([
      expect.objectContaining({ category: 'unknown', evidence: 'none' }),
      expect.objectContaining({ category: 'unknown', evidence: 'none' }),
    ]);
    expect(below).not.toHaveProperty('modelConfidence');
  });

  it('never overrides a rule: a message the rules read keeps their category and evidence "message"', () => {
    const input = { tool: 'connect', arguments: {}, error: { type: 'Error', message: 'connect ECONNREFUSED 127.0.0.1:5432' } };
    expect(diagnose(input, proposing('overflow/-', 1))).toMatchObject({ category: 'runtime_error', evidence: 'message' });
  });

  it('rules only when given no model', () => {
    expect(diagnose(GENERIC, null)).toMatchObject({ category: 'unknown', evidence: 'none' });
  });

  it('keeps the shipped model out of generic failures that name no cause', () => {
    expect(decideByModel(GENERIC, SHIPPED_FALLBACK_MODEL)).toBeNull();
  });

  // What Node, Python, the MCP SDKs and the AI SDK print for an error without a message (gen/gen-opaque.*).
  it.each([
    ['Error', ''],
    ['Error', 'Error'],
    [null, ''],
    [null, 'null'],
    ['Exception', 'None'],
    [null, 'undefined'],
    [null, '[object Object]'],
    [null, '{}'],
    [null, 'RuntimeError()'],
    [null, 'unknown error'],
    ['System.Exception', ''],
    ['AggregateError', 'AggregateError'],
  ])('leaves a failure that says nothing (type %j, message %j) unknown, however confident the model', (type, message) => {
    const input = { tool: 'lookup', arguments: { id: 7 }, error: { type, message } };
    expect(diagnose(input, proposing('argument_mismatch/missing_argument', 0.99))).toMatchObject({ category: 'unknown', evidence: 'none' });
  });

  it('still lets the model read a failure whose message or type names something', () => {
    const model = proposing('timeout/-', 0.9);
    const cancelled = { tool: 'crawl', arguments: {}, error: { type: 'asyncio.exceptions.CancelledError', message: '' } };
    const worded = { tool: 'crawl', arguments: {}, error: { type: 'Error', message: 'upstream gave up' } };
    expect([decideByModel(cancelled, model)?.category, decideByModel(worded, model)?.category]).toEqual(['timeout', 'timeout']);
    expect([isMessageless('', 'ValueError'), isMessageless('null', 'KeyError'), isMessageless('Error: None', null)]).toEqual([
      false,
      false,
      true,
    ]);
  });
});

describe('the linear model', () => {
  const weights: FallbackWeights = {
    format: 1,
    labels: ['overflow/-', 'timeout/-'],
    temperature: 1,
    bias: [0, 0],
    weights: { 'u:overflowed': [[0, 3]], 'u:__proto__': [[1, 5]] },
  };

  it('turns summed weights into a softmax confidence, and reads a feature only from its own weights', () => {
    const model = loadFallbackModel(weights);
    const proposal = model.propose({ message: 'stack overflowed', type: null, arguments: {}, hasSchema: false });
    expect(proposal.label).toBe('overflow/-');
    expect(proposal.confidence).toBeCloseTo(Math.exp(3) / (Math.exp(3) + 1), 10);
    expect(model.propose({ message: 'constructor toString', type: null, arguments: {}, hasSchema: false }).confidence).toBe(0.5);
  });
});

describe('trainFallbackModels', () => {
  const fixture = (id: string, source: string, message: string, category: string): TrainingFixture => ({
    id,
    source,
    arguments: {},
    error: { type: 'Error', message },
    expected: { category, subtype: null },
  });
  const fixtures = [
    fixture('a1', 'gen:a', 'request timed out after 30 s', 'timeout'),
    fixture('a2', 'gen:a', 'connection refused by upstream', 'runtime_error'),
    fixture('b1', 'gen:b', 'operation timed out', 'timeout'),
    fixture('b2', 'gen:b', 'upstream connection refused', 'runtime_error'),
    fixture('c1', 'gen:c', 'the call timed out', 'timeout'),
    fixture('c2', 'gen:c', 'connection refused', 'runtime_error'),
  ];

  it('writes the same bytes whatever order the fixtures come in, and one model per family without it', () => {
    const first = trainFallbackModels(fixtures);
    const second = trainFallbackModels([...fixtures].reverse());
    expect(serializeWeights(first.weights)).toBe(serializeWeights(second.weights));
    expect([...first.withoutFamily.keys()]).toEqual(['a', 'b', 'c']);
    const model = loadFallbackModel(first.weights);
    expect(model.propose({ message: 'it timed out', type: 'Error', arguments: {}, hasSchema: false }).label).toBe('timeout/-');
  });
});
