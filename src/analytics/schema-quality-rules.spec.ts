import { judgeTool } from '../registry/quality/tool-quality';
import { deriveSchemaQualityRecommendations, evidenceKeyOf, SCHEMA_CHANGE_ONLY, targetedMistakes } from './schema-quality-rules';

const DAY = new Date('2026-05-01T00:00:00Z');

// The origin-story tool (issue 23), judged by the real checker: the drafts follow from its report.
const ORIGIN = {
  name: 'prime_factorization',
  description: 'Perform prime factorization of a number',
  parameters: { type: 'object', properties: { number: { type: 'integer' } } },
};

describe('deriveSchemaQualityRecommendations', () => {
  const drafts = deriveSchemaQualityRecommendations({ tool: ORIGIN.name, ...judgeTool(ORIGIN) }, DAY);
  const byKey = (key: string) => drafts.find((d) => d.evidenceKey === key)!;

  it('makes one schema_quality draft per finding, keyed by kind and path', () => {
    expect(drafts.map((d) => d.evidenceKey).sort()).toEqual([
      'schema_quality:batchable_single_value:/parameters/properties/number',
      'schema_quality:no_usage_example:/description',
      'schema_quality:parameter_without_description:/parameters/properties/number',
      'schema_quality:required_not_declared:/parameters/required',
      'schema_quality:unbounded_number:/parameters/properties/number',
    ]);
    expect(new Set(drafts.map((d) => d.kind))).toEqual(new Set(['schema_quality']));
  });

  it('gives an addition its prose as the text, no occurrences, the finding, and the mistakes it targets', () => {
    const batching = byKey('schema_quality:batchable_single_value:/parameters/properties/number');
    expect(batching.text).toBe('Pass a single integer; call this tool once per number.');
    expect(batching.evidence).toMatchObject({
      count: 0,
      share: 0,
      firstSeen: DAY.toISOString(),
      exampleEventIds: [],
      finding: { kind: 'batchable_single_value', severity: 'high' },
      match: {
        categories: ['argument_mismatch'],
        subtypes: ['unknown_argument', 'missing_argument', 'type_mismatch'],
        argumentPaths: ['/number', '/numbers'],
      },
    });
    expect(batching.evidence.proposalOnly).toBeUndefined();
    expect(batching.confidence).toBeGreaterThan(byKey('schema_quality:no_usage_example:/description').confidence);
  });

  it('proposes a schema change with its fix as the text, marked never to be applied', () => {
    const bounds = byKey('schema_quality:unbounded_number:/parameters/properties/number');
    expect(bounds.text).toMatch(/^Declare "minimum" and "maximum" on 'number'/);
    expect(bounds.evidence.proposalOnly).toBe(SCHEMA_CHANGE_ONLY);
  });

  it('keeps the first of two findings with one kind and path', () => {
    const report = judgeTool({
      name: 'search',
      description: 'Search the index for the query and the page.',
      parameters: { type: 'object', properties: { query: { type: 'string', description: 'Words.' }, page: { type: 'integer' } } },
    });
    expect(report.findings.filter((f) => f.kind === 'required_not_declared')).toHaveLength(2);
    const drafts = deriveSchemaQualityRecommendations({ tool: 'search', ...report }, DAY);
    const required = drafts.filter((d) => d.evidenceKey === 'schema_quality:required_not_declared:/parameters/required');
    expect(required).toHaveLength(1);
    expect(required[0].text).toContain("'query'");
  });
});

describe('targetedMistakes', () => {
  it('counts any argument path for a missing example or a name the description words otherwise', () => {
    expect(targetedMistakes({ kind: 'no_usage_example', path: '/description' })).toEqual({
      categories: ['argument_mismatch'],
      subtypes: ['unknown_argument', 'missing_argument', 'type_mismatch', 'malformed_arguments'],
      argumentPaths: [],
      isAnyArgumentPath: true,
    });
    expect(targetedMistakes({ kind: 'name_differs_from_description', path: '/parameters/properties/path' })).toMatchObject({
      subtypes: ['unknown_argument'],
      isAnyArgumentPath: true,
    });
  });

  it('escapes the argument and its plural as JSON pointers', () => {
    expect(targetedMistakes({ kind: 'batchable_single_value', path: '/parameters/properties/a~1b' }).argumentPaths).toEqual([
      '/a~1b',
      '/a~1bs',
    ]);
  });
});

describe('evidenceKeyOf', () => {
  it('hashes a path too long for the column into a stable key', () => {
    const path = `/parameters/properties/${'x'.repeat(600)}`;
    const key = evidenceKeyOf({ kind: 'unbounded_number', path });
    expect(key).toMatch(/^schema_quality:unbounded_number:sha256:[0-9a-f]{64}$/);
    expect(evidenceKeyOf({ kind: 'unbounded_number', path })).toBe(key);
  });
});
