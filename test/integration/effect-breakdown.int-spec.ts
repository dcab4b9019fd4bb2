import { randomUUID } from 'node:crypto';
import { BreakdownRepository } from '../../src/analytics/breakdown.repository';
import { DEFAULT_POLICY } from '../../src/analytics/auto-apply-policy';
import { DailyStatsRepository } from '../../src/analytics/daily-stats.repository';
import { EffectMeasurementService } from '../../src/analytics/effect-measurement.service';
import { RecommendationDraft } from '../../src/analytics/recommendation-drafts';
import { RecommendationRepository } from '../../src/analytics/recommendation.repository';
import { SessionRollupRepository } from '../../src/analytics/session-rollup.repository';
import { ToolConfusionRepository } from '../../src/analytics/tool-confusion.repository';
import { aggregateBatch } from '../../src/categorize/batch-aggregates';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { toRow } from '../../src/categorize/categorize.service';
import { SharedTimeSlice } from '../../src/infra/event-loop/shared-time-slice';
import { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { RegistryService } from '../../src/registry/registry.service';
import { RolloutPolicyRepository } from '../../src/registry/serving/rollout-policy.repository';
import { CanaryRepository } from '../../src/registry/serving/canary.repository';
import { RegistryChangesChannel } from '../../src/registry/serving/registry-changes.channel';
import { ProjectNoteRepository } from '../../src/registry/tools/project-note.repository';
import { ToolChangesService } from '../../src/registry/tools/tool-changes.service';
import { ToolRepository } from '../../src/registry/tools/tool.repository';
import { ToolSchemaRepository } from '../../src/registry/tools/tool-schema.repository';
import type { EffectBreakdown } from '../../src/statistics/effect-breakdown';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { MediumModule, startMediumModule } from '../support/medium-module';

const DAY = new Date('2026-06-10T00:00:00.000Z');
const DAY_MS = 86_400_000;
const WARNING = "'n' above 20 fails (overflow): ask for 20 or less.";
const DESCRIPTIONS: Record<number, string> = { 1: 'Computes n!.', 2: `Computes n!. ${WARNING}` };
const OVERFLOW = { categories: ['overflow'], subtypes: [''], argumentPaths: ['/n'] };

/**
 * A scripted model: it reads the description it was given and picks `n` for its i-th call. The overflow it causes
 * (n = 25) is the mistake the warning is about.
 */
type ScriptedModel = (description: string, call: number) => number;
/** Heeds the warning: without it every other call overflows, with it one call in 20. */
const heedsWarnings: ScriptedModel = (description, call) =>
  description.includes(WARNING) ? (call % 20 === 0 ? 25 : 5) : call % 2 === 0 ? 25 : 5;
/** Ignores descriptions: every other call overflows, warning or not. */
const ignoresWarnings: ScriptedModel = (_description, call) => (call % 2 === 0 ? 25 : 5);

/**
 * The nightly's effect measurement broken down by model and framework, in process on this file's cloned database: the
 * worker's own batch writes of the scripted models' calls, the nightly's day breakdown, then the real measurement.
 */
describe('effect breakdown by model and framework', () => {
  let medium: MediumModule;
  let categorize: CategorizeRepository;
  let breakdowns: BreakdownRepository;
  let recommendations: RecommendationRepository;
  let effects: EffectMeasurementService;

  beforeAll(async () => {
    medium = await startMediumModule([
      CategorizeRepository,
      DailyStatsRepository,
      BreakdownRepository,
      SessionRollupRepository,
      ToolConfusionRepository,
      RecommendationRepository,
      EffectMeasurementService,
      RegistryService,
      ToolRepository,
      ToolSchemaRepository,
      ToolChangesService,
      RolloutPolicyRepository,
      RegistryChangesChannel,
      { provide: SharedTimeSlice, useFactory: () => new SharedTimeSlice() },
      ProjectNoteRepository,
      CanaryRepository,
    ]);
    categorize = medium.module.get(CategorizeRepository);
    breakdowns = medium.module.get(BreakdownRepository);
    recommendations = medium.module.get(RecommendationRepository);
    effects = medium.module.get(EffectMeasurementService);
  });
  afterAll(() => medium?.close());

  /** `calls` calls of `model` (through `framework`) on description `version`, as events. */
  function runModel(model: string, framework: string, script: ScriptedModel, version: number, calls: number) {
    return Array.from({ length: calls }, (_, call) => {
      const n = script(DESCRIPTIONS[version], call);
      const occurredAt = new Date(DAY.getTime() + 3_600_000 + call * 1000).toISOString();
      const fields = { tool: 'factorial', arguments: { n }, occurredAt, model, framework, descriptionVersion: version };
      return n > 20 ? anErrorEvent(`Factorial calculation overflow for n = ${n}`, fields) : anEvent(fields);
    });
  }

  /** Stores the events as the worker does: diagnosed by toRow, written with their aggregates in one batch. */
  async function store(projectId: string, events: Array<Record<string, unknown>>) {
    const rows = events.map((event) => toRow(projectId, event as unknown as AcceptedEvent, new Date(), undefined));
    expect(await categorize.writeBatch(projectId, rows, aggregateBatch)).toBe(events.length);
  }

  const aDraft = (): RecommendationDraft => ({
    tool: 'factorial',
    kind: 'learned_limit',
    evidenceKey: 'learned_limit:/n',
    text: WARNING,
    confidence: 0.9,
    evidence: {
      count: 20,
      share: 0.5,
      firstSeen: DAY.toISOString(),
      lastSeen: DAY.toISOString(),
      exampleEventIds: [],
      errorGroupIds: [],
      match: OVERFLOW,
      limit: 20,
    },
  });

  /** Two scripted models (and a third with too few calls) on both versions; the warning applied as version 2. */
  async function measuredBreakdown(projectId: string): Promise<{ verdict: string; breakdown: EffectBreakdown }> {
    await store(
      projectId,
      [1, 2].flatMap((version) => [
        ...runModel('model-that-heeds', 'langchain', heedsWarnings, version, 60),
        ...runModel('model-that-ignores', 'openai-agents', ignoresWarnings, version, 60),
        ...runModel('rare-model', 'openai-agents', ignoresWarnings, version, 4),
      ]),
    );
    await breakdowns.replaceDayBreakdown(projectId, DAY);
    const [recommendation] = await recommendations.upsertRecommendations(projectId, [aDraft()]);
    await recommendations.markApplied(projectId, recommendation.id, randomUUID(), 2, DAY);
    const policy = { ...DEFAULT_POLICY, autoRetire: false };
    expect(await effects.measureEffects(projectId, DAY, policy, new Set())).toEqual({ measured: 1, retired: 0 });
    const measured = await recommendations.findRecommendation(projectId, recommendation.id);
    return measured!.effect as unknown as { verdict: string; breakdown: EffectBreakdown };
  }

  it('reports the model a warning helped as helped and the model it did not as no_effect, beside the overall verdict', async () => {
    const effect = await measuredBreakdown(await medium.aProject());
    expect(effect.verdict).toBe('helped');
    const { model, framework, omitted, minCallsPerSide, isDivided } = effect.breakdown;
    expect(minCallsPerSide).toBe(30);
    expect(model.map((each) => [each.value, each.verdict])).toEqual([
      ['model-that-heeds', 'helped'],
      ['model-that-ignores', 'no_effect'],
    ]);
    const heeds = model[0];
    expect(heeds.withWarning).toEqual(expect.objectContaining({ calls: 60, mistakes: 3 }));
    expect(heeds.withoutWarning).toEqual(expect.objectContaining({ calls: 60, mistakes: 30 }));
    expect(model[1].withWarning).toEqual(expect.objectContaining({ calls: 60, mistakes: 30 }));
    // the rare model's 4 calls a side are below the minimum: counted as left out, not judged
    expect(omitted).toEqual({ model: 1, framework: 0 });
    expect(framework.map((each) => [each.value, each.verdict, each.withWarning.calls])).toEqual([
      ['openai-agents', 'no_effect', 64],
      ['langchain', 'helped', 60],
    ]);
    expect(isDivided).toBe(false);
  });

  it("keeps each project's breakdown its own, and replaces a re-computed day instead of adding to it", async () => {
    const projectId = await medium.aProject();
    const other = await medium.aProject();
    await store(other, runModel('model-that-heeds', 'langchain', heedsWarnings, 1, 40));
    await measuredBreakdown(projectId);
    await breakdowns.replaceDayBreakdown(projectId, DAY);
    const counts = await breakdowns.countBreakdownByVersion(projectId, 'factorial', OVERFLOW, new Date(DAY.getTime() + DAY_MS));
    const heeds = counts.find((each) => each.dimension === 'model' && each.value === 'model-that-heeds')!;
    expect(heeds.calls.map((row) => [row.version, row.count]).sort()).toEqual([
      [1, 60],
      [2, 60],
    ]);
    expect(heeds.mistakes.map((row) => [row.version, row.count]).sort()).toEqual([
      [1, 30],
      [2, 3],
    ]);
    const otherCounts = await breakdowns.countBreakdownByVersion(other, 'factorial', null, new Date(DAY.getTime() + DAY_MS));
    // the other project's calls were not part of the first one's day, and its own day was never computed
    expect(otherCounts).toEqual([]);
  });

  it('keeps the 10 values with the most calls of a tool and day, leaving the rest out', async () => {
    const projectId = await medium.aProject();
    await store(
      projectId,
      Array.from({ length: 12 }, (_, i) => runModel(`model-${String(i).padStart(2, '0')}`, 'mastra', ignoresWarnings, 1, 12 - i)).flat(),
    );
    await breakdowns.replaceDayBreakdown(projectId, DAY);
    const counts = await breakdowns.countBreakdownByVersion(projectId, 'factorial', null, new Date(DAY.getTime() + DAY_MS));
    const models = counts.filter((each) => each.dimension === 'model').map((each) => each.value);
    expect(models.sort()).toEqual(Array.from({ length: 10 }, (_, i) => `model-${String(i).padStart(2, '0')}`));
    const mastra = counts.find((each) => each.dimension === 'framework')!;
    expect(mastra.calls[0].count).toBe(78);
    // every diagnosed mistake counts without a match: every other call of each model overflowed
    expect(mastra.mistakes[0].count).toBe([...Array(12).keys()].reduce((n, i) => n + Math.ceil((12 - i) / 2), 0));
  });
});
