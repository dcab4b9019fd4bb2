import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { DEFAULT_POLICY } from '../../src/analytics/auto-apply-policy';
import { DailyStatsRepository } from '../../src/analytics/daily-stats.repository';
import { EffectMeasurementService } from '../../src/analytics/effect-measurement.service';
import { MistakeEvidenceRepository } from '../../src/analytics/mistake-evidence.repository';
import { RecommendationApplier } from '../../src/analytics/recommendation-applier';
import type { RecommendationDraft } from '../../src/analytics/recommendation-drafts';
import { RecommendationRepository, StoredRecommendation } from '../../src/analytics/recommendation.repository';
import { RepeatedCallsService } from '../../src/analytics/repeated-calls.service';
import { SessionRollupRepository } from '../../src/analytics/session-rollup.repository';
import { ToolConfusionRepository } from '../../src/analytics/tool-confusion.repository';
import { BreakdownRepository } from '../../src/analytics/breakdown.repository';
import { WarningCostService, warningLine } from '../../src/analytics/warning-cost.service';
import { aggregateBatch } from '../../src/categorize/batch-aggregates';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { toRow } from '../../src/categorize/categorize.service';
import { ToolVersionQueries } from '../../src/dashboard/tool-version.queries';
import { SharedTimeSlice } from '../../src/infra/event-loop/shared-time-slice';
import { ReadPrismaService } from '../../src/infra/prisma/read-prisma.service';
import type { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { RegistryService } from '../../src/registry/registry.service';
import { CanaryRepository } from '../../src/registry/serving/canary.repository';
import { RegistryChangesChannel } from '../../src/registry/serving/registry-changes.channel';
import { RolloutPolicyRepository } from '../../src/registry/serving/rollout-policy.repository';
import { ProjectNoteRepository } from '../../src/registry/tools/project-note.repository';
import { ToolChangesService } from '../../src/registry/tools/tool-changes.service';
import { ToolSchemaRepository } from '../../src/registry/tools/tool-schema.repository';
import { ToolRepository } from '../../src/registry/tools/tool.repository';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { MediumModule, startMediumModule } from '../support/medium-module';

const DAY = new Date('2026-05-10T00:00:00.000Z');
const at = (minute: number) => new Date(DAY.getTime() + 3_600_000 + minute * 1000).toISOString();

const GET_ORDER = {
  name: 'get_order',
  description: 'Look up one order by its id. Returns its status, items and totals.',
  parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
};

/**
 * What a description costs, in process against this file's cloned database: the tokens each version records, the
 * repeated calls per tool and version with a repeated_call warning measured on them, and the token cap.
 */
describe('description cost and repeated calls', () => {
  let medium: MediumModule;
  let categorize: CategorizeRepository;
  let toolChanges: ToolChangesService;
  let tools: ToolRepository;
  let recommendations: RecommendationRepository;
  let applier: RecommendationApplier;
  let repeated: RepeatedCallsService;
  let effects: EffectMeasurementService;
  let warningCost: WarningCostService;
  let registry: RegistryService;
  let versions: ToolVersionQueries;

  beforeAll(async () => {
    medium = await startMediumModule([
      CategorizeRepository,
      ToolRepository,
      ToolSchemaRepository,
      RolloutPolicyRepository,
      RegistryChangesChannel,
      ToolChangesService,
      ProjectNoteRepository,
      CanaryRepository,
      { provide: SharedTimeSlice, useFactory: () => new SharedTimeSlice() },
      RegistryService,
      DailyStatsRepository,
      MistakeEvidenceRepository,
      RecommendationRepository,
      RecommendationApplier,
      SessionRollupRepository,
      ToolConfusionRepository,
      BreakdownRepository,
      RepeatedCallsService,
      EffectMeasurementService,
      WarningCostService,
      ReadPrismaService,
      ToolVersionQueries,
    ]);
    categorize = medium.module.get(CategorizeRepository);
    toolChanges = medium.module.get(ToolChangesService);
    tools = medium.module.get(ToolRepository);
    recommendations = medium.module.get(RecommendationRepository);
    applier = medium.module.get(RecommendationApplier);
    repeated = medium.module.get(RepeatedCallsService);
    effects = medium.module.get(EffectMeasurementService);
    warningCost = medium.module.get(WarningCostService);
    registry = medium.module.get(RegistryService);
    versions = medium.module.get(ToolVersionQueries);
  });
  afterAll(() => medium?.close());

  /** Stores events as the worker does: diagnosed by toRow, written with their aggregates in one batch. */
  async function store(projectId: string, events: Array<Record<string, unknown>>): Promise<void> {
    const rows = events.map((event) => toRow(projectId, event as unknown as AcceptedEvent, new Date(), undefined));
    expect(await categorize.writeBatch(projectId, rows, aggregateBatch)).toBe(events.length);
  }

  const storedVersions = async (projectId: string) =>
    (
      await medium.db.sql.query<{ version: number; base: string; description: string; description_tokens: number; warning_tokens: number }>(
        `SELECT v.version, v.base_description AS base, v.description, v.description_tokens, v.warning_tokens
         FROM tool_versions v JOIN tools t ON t.project_id = v.project_id AND t.id = v.tool_id
         WHERE v.project_id = $1 AND t.name = 'get_order' ORDER BY v.version`,
        [projectId],
      )
    ).rows;

  const draft = (kind: string, evidenceKey: string, text: string, count: number): RecommendationDraft =>
    ({
      tool: 'get_order',
      kind,
      evidenceKey,
      text,
      confidence: 0.9,
      evidence: {
        count,
        share: 0.2,
        firstSeen: DAY.toISOString(),
        lastSeen: DAY.toISOString(),
        exampleEventIds: [],
        errorGroupIds: [],
        match: { categories: ['argument_mismatch'], subtypes: [evidenceKey], argumentPaths: [''] },
      },
    }) as RecommendationDraft;

  it("records each version's tokens as the tokenizer library counts the served description, and what its warnings add", async () => {
    const projectId = await medium.aProject();
    await toolChanges.registerTool(projectId, GET_ORDER);
    const [proposal] = await recommendations.upsertRecommendations(projectId, [
      draft('repeated_call', 'repeated_call:', "Call this tool once per 'order_id'; the answer does not change on retry.", 12),
    ]);
    expect(await applier.apply(projectId, proposal, DAY)).toBe(true);
    const rows = await storedVersions(projectId);
    expect(rows.map((row) => row.version)).toEqual([1, 2]);
    const served = (await tools.findServedTool(projectId, 'get_order', null))!.view;
    expect(served.description).toBe(rows[1].description);
    for (const row of rows) {
      expect(row.description_tokens).toBe(encode(row.description).length);
      expect(row.warning_tokens).toBe(encode(row.description).length - encode(row.base).length);
    }
    expect(rows[0].warning_tokens).toBe(0);
    expect(rows[1].warning_tokens).toBeGreaterThan(10);
    const [latest] = (await versions.listVersions(projectId, 'get_order', undefined, 1))!;
    expect(latest).toMatchObject({
      version: 2,
      descriptionTokens: encode(served.description).length,
      warningTokens: rows[1].warning_tokens,
    });
  });

  it('counts repeated calls per tool and version, successful or not, and measures a repeated_call warning on them', async () => {
    const projectId = await medium.aProject();
    const other = await medium.aProject();
    await toolChanges.registerTool(projectId, GET_ORDER);
    // version 1: 12 sessions each call get_order 5 times with the same id (3 beyond the 2 allowed), half of them
    // failing, and list_orders once; version 2: 20 sessions each call it twice with one id and once with another
    const v1 = Array.from({ length: 12 }, (_, s) => [
      ...Array.from({ length: 5 }, (_, i) =>
        (s % 2 === 0 ? anErrorEvent : (_m: string, o: Record<string, unknown>) => anEvent(o))('Order service unavailable', {
          tool: 'get_order',
          arguments: { order_id: `A-${s}` },
          sessionId: `one-${s}`,
          descriptionVersion: 1,
          occurredAt: at(s * 10 + i),
        }),
      ),
      anEvent({ tool: 'list_orders', arguments: {}, sessionId: `one-${s}`, descriptionVersion: 1, occurredAt: at(s * 10 + 6) }),
    ]).flat();
    const v2 = Array.from({ length: 20 }, (_, s) =>
      [`B-${s}`, `B-${s}`, `C-${s}`].map((id, i) =>
        anEvent({
          tool: 'get_order',
          arguments: { order_id: id },
          sessionId: `two-${s}`,
          descriptionVersion: 2,
          occurredAt: at(200 + s * 5 + i),
        }),
      ),
    ).flat();
    // without a session there is nothing to repeat within
    const sessionless = Array.from({ length: 5 }, (_, i) =>
      anEvent({ tool: 'get_order', arguments: { order_id: 'X' }, occurredAt: at(400 + i) }),
    );
    await store(projectId, [...v1, ...v2, ...sessionless]);
    await store(
      other,
      v1.map((event) => ({ ...event, id: `${String(event.id)}-other` })),
    );

    const rollups = async (projectId: string) =>
      (
        await medium.db.sql.query(
          `SELECT tool, description_version AS version, sessions, calls, steps, repeated_calls AS repeated, sessions_with_repeats AS "withRepeats"
           FROM daily_session_rollups WHERE project_id = $1 ORDER BY tool, description_version`,
          [projectId],
        )
      ).rows;
    await repeated.rollUpSessions(projectId, DAY);
    const expected = [
      { tool: 'get_order', version: 1, sessions: 12, calls: 60, steps: 72, repeated: 36, withRepeats: 12 },
      { tool: 'get_order', version: 2, sessions: 20, calls: 60, steps: 60, repeated: 0, withRepeats: 0 },
      { tool: 'list_orders', version: 1, sessions: 12, calls: 12, steps: 72, repeated: 0, withRepeats: 0 },
    ];
    expect(await rollups(projectId)).toEqual(expected);
    // re-computing the day replaces its rows; another project's events never count
    await repeated.rollUpSessions(projectId, DAY);
    expect(await rollups(projectId)).toEqual(expected);
    expect(await rollups(other)).toEqual([]);

    const drafts = await repeated.deriveRepeatDrafts(projectId, DAY, new Set(['get_order', 'list_orders']));
    expect(drafts).toHaveLength(1);
    expect(drafts[0]).toMatchObject({
      tool: 'get_order',
      kind: 'repeated_call',
      text: "Call this tool once per 'order_id'; the answer does not change on retry.",
      evidence: { count: 36, share: 0.3, sessions: 32, sessionsWithRepeats: 12, repeatsPerSession: 1.13 },
    });
    expect(drafts[0].evidence.exampleEventIds).toHaveLength(5);
    expect(await repeated.deriveRepeatDrafts(projectId, DAY, new Set(['list_orders']))).toEqual([]);

    // applied as version 2 (the version the second phase's sessions reported), then measured per version
    const [proposal] = await recommendations.upsertRecommendations(projectId, drafts);
    expect(await applier.apply(projectId, proposal, DAY)).toBe(true);
    expect(await effects.measureEffects(projectId, DAY, DEFAULT_POLICY, new Set())).toEqual({ measured: 1, retired: 0 });
    const [measured] = await recommendations.findAppliedRecommendations(projectId);
    expect(measured.appliedVersion).toBe(2);
    expect(measured.effect).toMatchObject({
      method: 'version',
      verdict: 'helped',
      withWarning: { calls: 60, mistakes: 0, rate: 0 },
      withoutWarning: { calls: 60, mistakes: 36, rate: 0.6 },
    });
    const history = (await versions.listVersions(projectId, 'get_order', undefined, 10))!;
    expect(
      history.map(({ version, sessions, sessionCalls, steps, repeatedCalls }) => ({
        version,
        sessions,
        sessionCalls,
        steps,
        repeatedCalls,
      })),
    ).toEqual([
      { version: 2, sessions: 20, sessionCalls: 60, steps: 60, repeatedCalls: 0 },
      { version: 1, sessions: 12, sessionCalls: 60, steps: 72, repeatedCalls: 36 },
    ]);
  });

  it("keeps the warnings with the best measured effect per token under the project's cap and retires the lowest-value one", async () => {
    const projectId = await medium.aProject();
    await toolChanges.registerTool(projectId, GET_ORDER);
    const stored = await recommendations.upsertRecommendations(projectId, [
      draft('missing_argument', 'missing_argument:/order_id', "Always pass 'order_id' (a string).", 40),
      draft('type_mismatch', 'type_mismatch:/order_id', "'order_id' must be a string, not a number.", 30),
      draft('wrong_argument_name', 'wrong_argument_name:/id', "Do not pass 'id'. The parameter is 'order_id'.", 20),
    ]);
    for (const recommendation of stored) expect(await applier.apply(projectId, recommendation, DAY)).toBe(true);
    const [missing, typeMismatch, wrongName] = await Promise.all(
      stored.map(async (r) => (await recommendations.findAppliedRecommendations(projectId)).find((a) => a.id === r.id)!),
    );
    // measured: the wrong-name warning helped least (20 fewer per 1,000 calls, against 190 and 100)
    const effect = (withRate: number, withoutRate: number) => ({ withWarning: { rate: withRate }, withoutWarning: { rate: withoutRate } });
    await recommendations.recordEffect(projectId, missing.id, effect(0.01, 0.2));
    await recommendations.recordEffect(projectId, typeMismatch.id, effect(0.1, 0.2));
    await recommendations.recordEffect(projectId, wrongName.id, effect(0.18, 0.2));
    const lineTokens = (r: StoredRecommendation) => encode(warningLine(r)).length;
    const cap = lineTokens(missing) + lineTokens(typeMismatch) + lineTokens(wrongName) - 1;
    const policy = { ...DEFAULT_POLICY, warningTokenCap: cap };

    // a proposal that would take the tool over the cap is not applied
    const extra = { ...missing, id: 'proposal', status: 'proposed' } as StoredRecommendation;
    expect((await warningCost.budgetFor(policy, [typeMismatch], [extra])).admits(extra)).toBe(true);
    expect((await warningCost.budgetFor(policy, [missing, typeMismatch, wrongName], [extra])).admits(extra)).toBe(false);

    expect(await warningCost.enforceCap(projectId, DAY, policy, new Set())).toBe(1);
    const applied = await recommendations.findAppliedRecommendations(projectId);
    expect(applied.map((r) => r.id).sort()).toEqual([missing.id, typeMismatch.id].sort());
    const dismissed = await registry.findDismissedWarnings(projectId, [wrongName.warningId!, missing.warningId!]);
    expect([...dismissed.keys()]).toEqual([wrongName.warningId]);
    const served = (await tools.findServedTool(projectId, 'get_order', null))!.view;
    expect(served.description).not.toContain("Do not pass 'id'");
    expect(served.description).toContain("Always pass 'order_id'");
    const [retired] = (
      await medium.db.sql.query<{ status: string; effect: Record<string, unknown> }>(
        'SELECT status, effect FROM recommendations WHERE project_id = $1 AND id = $2',
        [projectId, wrongName.id],
      )
    ).rows;
    expect(retired).toMatchObject({ status: 'dismissed', effect: { retired: true, retiredByTokenCap: { cap } } });
    // under the cap nothing more is retired; a tool whose canary runs is left to its canary, whatever the cap
    expect(await warningCost.enforceCap(projectId, DAY, policy, new Set())).toBe(0);
    expect(await warningCost.enforceCap(projectId, DAY, { ...policy, warningTokenCap: 0 }, new Set(['get_order']))).toBe(0);
    expect(await recommendations.findAppliedRecommendations(projectId)).toHaveLength(2);
  });
});
