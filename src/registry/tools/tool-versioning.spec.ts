import type { ToolState, WarningRecord } from '../registry.types';
import { canonicalJson, DesiredTool, planToolChange } from './tool-versioning';

const at = new Date('2026-03-01T00:00:00.000Z');
const parameters = { type: 'object', properties: { number: { type: 'integer' } }, required: ['number'] };

function aWarning(overrides: Partial<WarningRecord> = {}): WarningRecord {
  return {
    id: '00000000-0000-4000-8000-000000000001',
    kind: 'unknown_argument',
    text: "Do not pass 'numbers'.",
    evidence: { count: 10, firstSeen: '2026-02-01T00:00:00.000Z', lastSeen: '2026-02-02T00:00:00.000Z', exampleEventIds: ['e1'] },
    evidenceKey: 'unknown_argument:/numbers',
    source: 'auto',
    status: 'active',
    dismissedReason: null,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

function aState(warnings: WarningRecord[] = []): ToolState {
  return {
    tool: { id: 't1', name: 'prime_factors', description: 'Factorize.', parameters, metadata: null, version: 4, archivedAt: null },
    warnings,
  };
}

const desiredFrom = (state: ToolState, overrides: Partial<DesiredTool> = {}): DesiredTool => ({
  description: state.tool.description,
  parameters: state.tool.parameters,
  metadata: state.tool.metadata,
  archivedAt: state.tool.archivedAt,
  warnings: state.warnings,
  ...overrides,
});

describe('planToolChange', () => {
  it('creates version 1 with a snapshot for a new tool', () => {
    const plan = planToolChange(null, { description: 'Factorize.', parameters, metadata: null, archivedAt: null, warnings: [] });
    expect(plan).toMatchObject({ isNewTool: true, version: 1, isServedChanged: true });
    expect(plan.snapshot).toEqual({ version: 1, baseDescription: 'Factorize.', description: 'Factorize.', parameters, warnings: [] });
  });

  it('writes nothing for the same content, even with the schema keys in another order', () => {
    const state = aState([aWarning()]);
    const reordered = { required: ['number'], properties: { number: { type: 'integer' } }, type: 'object' };
    const plan = planToolChange(state, desiredFrom(state, { parameters: reordered }));
    expect(plan).toEqual({ isNewTool: false, toolRow: null, warningWrites: [], snapshot: null, version: 4, isServedChanged: false });
  });

  it('creates a new version when the base description or the parameters change', () => {
    const state = aState();
    expect(planToolChange(state, desiredFrom(state, { description: 'Factorize one integer.' })).version).toBe(5);
    const wider = { ...parameters, properties: { number: { type: 'integer', maximum: 10 } } };
    expect(planToolChange(state, desiredFrom(state, { parameters: wider })).snapshot?.parameters).toBe(wider);
  });

  it('creates a new version with the rendered block when a warning becomes active', () => {
    const state = aState();
    const plan = planToolChange(state, desiredFrom(state, { warnings: [aWarning()] }));
    expect(plan.version).toBe(5);
    expect(plan.warningWrites).toHaveLength(1);
    expect(plan.snapshot?.description).toBe("Factorize.\n\nCommon mistakes:\n- Do not pass 'numbers'. 10 recent calls failed this way.");
    expect(plan.snapshot?.warnings).toEqual([
      { id: aWarning().id, kind: 'unknown_argument', text: "Do not pass 'numbers'.", evidence: aWarning().evidence, status: 'active' },
    ]);
  });

  it('creates a new version when a warning text changes or it is dismissed', () => {
    const state = aState([aWarning()]);
    expect(planToolChange(state, desiredFrom(state, { warnings: [aWarning({ text: 'Pass one integer.' })] })).version).toBe(5);
    const dismissed = planToolChange(state, desiredFrom(state, { warnings: [aWarning({ status: 'dismissed' })] }));
    expect(dismissed.version).toBe(5);
    expect(dismissed.snapshot?.description).toBe('Factorize.');
  });

  it('updates the warning but keeps the version when only its evidence changes', () => {
    const state = aState([aWarning()]);
    const recounted = aWarning({ evidence: { ...aWarning().evidence, count: 99 } });
    const plan = planToolChange(state, desiredFrom(state, { warnings: [recounted] }));
    expect(plan).toMatchObject({ version: 4, snapshot: null, toolRow: null, isServedChanged: false });
    expect(plan.warningWrites).toEqual([recounted]);
  });

  it('writes the row without a new version when only metadata or archiving changes', () => {
    const state = aState();
    const archived = planToolChange(state, desiredFrom(state, { archivedAt: at }));
    expect(archived).toMatchObject({ version: 4, snapshot: null, isServedChanged: true, toolRow: { archivedAt: at } });
    expect(planToolChange(state, desiredFrom(state, { metadata: { team: 'x' } })).snapshot).toBeNull();
  });
});

describe('canonicalJson', () => {
  it('sorts keys at every level but keeps array order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
  });
});
