import { randomUUID } from 'node:crypto';
import { DailyStatsRepository } from '../../src/analytics/daily-stats.repository';
import { computeDailyToolStat } from '../../src/analytics/daily-stats';
import { JobRun, JobRunRepository } from '../../src/analytics/job-run.repository';
import { MistakeEvidenceRepository } from '../../src/analytics/mistake-evidence.repository';
import { RecommendationDraft } from '../../src/analytics/recommendation-drafts';
import { ProjectPolicyValues, RecommendationRepository } from '../../src/analytics/recommendation.repository';
import { aggregateBatch } from '../../src/categorize/batch-aggregates';
import { CategorizeRepository } from '../../src/categorize/categorize.repository';
import { toRow } from '../../src/categorize/categorize.service';
import { LATENCY_BUCKET_COUNT, latencyBucketIndex } from '../../src/diagnosis';
import { StatsQueries } from '../../src/dashboard/stats.queries';
import { ReadPrismaService } from '../../src/infra/prisma/read-prisma.service';
import { AcceptedEvent } from '../../src/infra/queue/queue.payloads';
import { anErrorEvent, anEvent } from '../factories/event.factory';
import { MediumModule, startMediumModule } from '../support/medium-module';

const DAY = '2026-05-10';
const DAY_MS = 86_400_000;
/** The UTC midnight `offsetDays` from DAY, as YYYY-MM-DD. */
const dayAt = (offsetDays: number) => new Date(Date.parse(`${DAY}T00:00:00.000Z`) + offsetDays * DAY_MS).toISOString().slice(0, 10);
const midnight = (offsetDays: number) => new Date(`${dayAt(offsetDays)}T00:00:00.000Z`);
const at = (offsetDays: number, time: string) => `${dayAt(offsetDays)}T${time}.000Z`;

const OVERFLOW = { categories: ['overflow'], subtypes: [''], argumentPaths: ['/n'] };

/**
 * The analytics reads in process: each repository against this file's cloned database, over rows the worker's own
 * batch write (CategorizeRepository with the real diagnosis and aggregates) produced, or plain inserts where the
 * analytics write them themselves. Every test makes projects of its own, and a second project whose rows must never
 * show up in the first one's reads.
 */
describe('analytics repositories', () => {
  let medium: MediumModule;
  let categorize: CategorizeRepository;
  let dailyStats: DailyStatsRepository;
  let evidence: MistakeEvidenceRepository;
  let recommendations: RecommendationRepository;
  let jobRuns: JobRunRepository;
  let statsQueries: StatsQueries;
  const aProject = () => medium.aProject();

  beforeAll(async () => {
    medium = await startMediumModule([
      CategorizeRepository,
      DailyStatsRepository,
      MistakeEvidenceRepository,
      RecommendationRepository,
      JobRunRepository,
      ReadPrismaService,
      StatsQueries,
    ]);
    categorize = medium.module.get(CategorizeRepository);
    dailyStats = medium.module.get(DailyStatsRepository);
    evidence = medium.module.get(MistakeEvidenceRepository);
    recommendations = medium.module.get(RecommendationRepository);
    jobRuns = medium.module.get(JobRunRepository);
    statsQueries = medium.module.get(StatsQueries);
  });
  afterAll(() => medium?.close());

  /** Stores events as the worker does: diagnosed by toRow, written with their aggregates in one batch. */
  async function store(projectId: string, events: Array<Record<string, unknown>>): Promise<void> {
    const receivedAt = new Date();
    const rows = events.map((event) => toRow(projectId, event as unknown as AcceptedEvent, receivedAt, undefined));
    expect(await categorize.writeBatch(projectId, rows, aggregateBatch)).toBe(events.length);
  }

  /** A factorial call: n up to 20 succeeds, above it fails with the library's overflow message. */
  const factorial = (n: number, occurredAt: string, overrides: Record<string, unknown> = {}) =>
    n <= 20
      ? anEvent({ tool: 'factorial', arguments: { n }, occurredAt, ...overrides })
      : anErrorEvent(`Factorial calculation overflow for n = ${n}`, { tool: 'factorial', arguments: { n }, occurredAt, ...overrides });
  const timeout = (tool: string, occurredAt: string, overrides: Record<string, unknown> = {}) =>
    anErrorEvent('Request timed out after 30000 ms', { tool, occurredAt, ...overrides });

  /** Latency bucket counts of these durations, as the rollups keep them. */
  function bucketsOf(durationsMs: number[]): number[] {
    const buckets = new Array<number>(LATENCY_BUCKET_COUNT).fill(0);
    for (const ms of durationsMs) buckets[latencyBucketIndex(ms)] += 1;
    return buckets;
  }

  const byTool = <T extends { tool: string }>(rows: T[]) => [...rows].sort((a, b) => a.tool.localeCompare(b.tool));

  describe('DailyStatsRepository', () => {
    it("sums one UTC day of a project's hourly rollups per tool, with its errors by category and the 7 days before", async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [
        anEvent({ occurredAt: at(0, '00:00:00'), durationMs: 3 }),
        timeout('get_weather', at(0, '09:30:00'), { durationMs: 30_000 }),
        timeout('get_weather', at(0, '23:59:59'), { durationMs: undefined }),
        factorial(3, at(0, '12:00:00'), { durationMs: 2 }),
        factorial(25, at(0, '12:10:00'), { durationMs: 1 }),
        // outside the day: the next day, the 7 days before (from midnight 7 days back) and before those
        anEvent({ occurredAt: at(1, '00:00:00') }),
        anEvent({ occurredAt: at(-1, '12:00:00') }),
        timeout('get_weather', at(-7, '00:00:00')),
        anEvent({ occurredAt: at(-8, '23:59:59') }),
        // a tool with calls in the week before only has no day to sum
        anEvent({ tool: 'get_time', occurredAt: at(-2, '12:00:00') }),
      ]);
      await store(other, [anEvent({ occurredAt: at(0, '10:00:00') }), timeout('factorial', at(0, '10:00:00'))]);

      expect(byTool(await dailyStats.sumToolDays(projectId, midnight(0)))).toEqual([
        {
          tool: 'factorial',
          calls: 2,
          errors: 1,
          latencyCount: 2,
          latencyBuckets: bucketsOf([2, 1]),
          errorsByCategory: [{ category: 'overflow', subtype: '', count: 1 }],
          prev7Calls: 0,
          prev7Errors: 0,
        },
        {
          tool: 'get_weather',
          calls: 3,
          errors: 2,
          latencyCount: 2,
          latencyBuckets: bucketsOf([3, 30_000]),
          errorsByCategory: [{ category: 'timeout', subtype: '', count: 2 }],
          prev7Calls: 2,
          prev7Errors: 1,
        },
      ]);
      expect(await dailyStats.sumToolDays(projectId, midnight(-20))).toEqual([]);
    });

    it("replaces a day's stats when the day is computed again, keeping other days and other projects", async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [anEvent({ occurredAt: at(0, '08:00:00') }), factorial(30, at(0, '08:00:00'))]);
      await store(projectId, [anEvent({ occurredAt: at(1, '08:00:00') })]);
      await store(other, [anEvent({ occurredAt: at(0, '08:00:00') })]);
      const statsOf = async (project: string, offsetDays: number) =>
        (await dailyStats.sumToolDays(project, midnight(offsetDays))).map(computeDailyToolStat);
      const [day, nextDay, otherDay] = [await statsOf(projectId, 0), await statsOf(projectId, 1), await statsOf(other, 0)];
      await dailyStats.replaceDailyToolStats(projectId, midnight(0), day);
      await dailyStats.replaceDailyToolStats(projectId, midnight(1), nextDay);
      await dailyStats.replaceDailyToolStats(other, midnight(0), otherDay);

      const asStored = (rows: typeof day, project: string, offsetDays: number) =>
        byTool(rows).map((row) => ({ ...row, projectId: project, day: midnight(offsetDays), computedAt: expect.any(Date) }));
      expect(day.map((row) => row.tool).sort()).toEqual(['factorial', 'get_weather']);
      expect(byTool(await dailyStats.findDailyToolStats(projectId, midnight(0)))).toEqual(asStored(day, projectId, 0));

      const weatherOnly = day.filter((row) => row.tool === 'get_weather').map((row) => ({ ...row, calls: 7 }));
      await dailyStats.replaceDailyToolStats(projectId, midnight(0), weatherOnly);
      expect(await dailyStats.findDailyToolStats(projectId, midnight(0))).toEqual(asStored(weatherOnly, projectId, 0));
      expect(await dailyStats.findDailyToolStats(projectId, midnight(1))).toEqual(asStored(nextDay, projectId, 1));
      expect(await dailyStats.findDailyToolStats(other, midnight(0))).toEqual(asStored(otherDay, other, 0));
    });

    it('counts calls and matching mistakes of one tool per description version and day, before the given day', async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [
        factorial(3, at(0, '08:00:00'), { descriptionVersion: 1 }),
        factorial(25, at(0, '08:01:00'), { descriptionVersion: 1 }),
        factorial(30, at(0, '08:02:00'), { descriptionVersion: 1 }),
        // a mistake of another kind is a call, not a match
        timeout('factorial', at(0, '08:03:00'), { descriptionVersion: 1 }),
        // no version reported: version 0
        factorial(22, at(0, '09:00:00')),
        factorial(4, at(1, '08:00:00'), { descriptionVersion: 2 }),
        factorial(21, at(1, '08:01:00'), { descriptionVersion: 2 }),
        // on the day `until` names: not counted
        factorial(40, at(2, '00:00:00'), { descriptionVersion: 2 }),
        anEvent({ occurredAt: at(0, '08:00:00'), descriptionVersion: 1 }),
      ]);
      await store(other, [factorial(50, at(0, '08:00:00'), { descriptionVersion: 1 })]);

      const counted = await dailyStats.countMistakesByVersion(projectId, 'factorial', OVERFLOW, midnight(2));
      const byDayAndVersion = <T extends { day: Date; version: number }>(rows: T[]) =>
        [...rows].sort((a, b) => a.day.getTime() - b.day.getTime() || a.version - b.version);
      expect(byDayAndVersion(counted.calls)).toEqual([
        { day: midnight(0), version: 0, count: 1 },
        { day: midnight(0), version: 1, count: 4 },
        { day: midnight(1), version: 2, count: 2 },
      ]);
      expect(byDayAndVersion(counted.mistakes)).toEqual([
        { day: midnight(0), version: 0, count: 1 },
        { day: midnight(0), version: 1, count: 2 },
        { day: midnight(1), version: 2, count: 1 },
      ]);
      const otherPath = await dailyStats.countMistakesByVersion(
        projectId,
        'factorial',
        { ...OVERFLOW, argumentPaths: ['/m'] },
        midnight(2),
      );
      expect(otherPath.mistakes).toEqual([]);
    });
  });

  describe('MistakeEvidenceRepository', () => {
    it('reads the error groups seen in the 30 days up to the day and not ignored, with what the worker extracted', async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [
        factorial(25, at(-1, '10:00:00'), { id: 'f-1' }),
        factorial(30, at(0, '10:00:00'), { id: 'f-2' }),
        factorial(21, at(0, '11:00:00'), { id: 'f-3' }),
        // last seen exactly 30 days before: still in the window, whatever its status short of ignored
        timeout('edge_tool', at(-30, '00:00:00'), { id: 'edge-1' }),
        timeout('stale_tool', at(-31, '23:59:59'), { id: 'stale-1' }),
        // first seen after the day: not evidence for it
        timeout('future_tool', at(1, '00:00:00'), { id: 'future-1' }),
        timeout('ignored_tool', at(0, '10:00:00'), { id: 'ignored-1' }),
      ]);
      await medium.db.sql.query(`UPDATE error_groups SET status = 'resolved' WHERE project_id = $1 AND tool = 'edge_tool'`, [projectId]);
      await medium.db.sql.query(`UPDATE error_groups SET status = 'ignored' WHERE project_id = $1 AND tool = 'ignored_tool'`, [projectId]);
      await store(other, [factorial(99, at(0, '10:00:00'), { id: 'f-1' })]);
      const groupIdOf = async (eventId: string) =>
        (
          await medium.db.sql.query<{ error_group_id: string }>('SELECT error_group_id FROM events WHERE project_id = $1 AND id = $2', [
            projectId,
            eventId,
          ])
        ).rows[0].error_group_id;

      expect(byTool(await evidence.findRecentErrorGroups(projectId, midnight(0)))).toEqual([
        {
          id: await groupIdOf('edge-1'),
          tool: 'edge_tool',
          category: 'timeout',
          subtype: null,
          argumentPath: null,
          messageTemplate: 'Request timed out after <int> ms',
          count: 1,
          firstSeen: new Date(at(-30, '00:00:00')),
          lastSeen: new Date(at(-30, '00:00:00')),
          sampleEventIds: ['edge-1'],
          intendedArgument: null,
          arrayForScalarCount: 0,
          minOffendingValue: null,
          maxOffendingValue: null,
        },
        {
          id: await groupIdOf('f-1'),
          tool: 'factorial',
          category: 'overflow',
          subtype: null,
          argumentPath: '/n',
          messageTemplate: 'Factorial calculation overflow for n = <int>',
          count: 3,
          firstSeen: new Date(at(-1, '10:00:00')),
          lastSeen: new Date(at(0, '11:00:00')),
          sampleEventIds: ['f-1', 'f-2', 'f-3'],
          intendedArgument: null,
          arrayForScalarCount: 0,
          minOffendingValue: 21,
          maxOffendingValue: 30,
        },
      ]);
    });

    it("reads a project's argument ranges learned from successful calls only, with counts as numbers", async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [
        factorial(0, at(0, '08:00:00')),
        factorial(7, at(0, '08:00:00')),
        factorial(20, at(0, '08:00:00')),
        factorial(25, at(0, '08:00:00')),
        anEvent({ occurredAt: at(0, '08:00:00'), arguments: { city: 'Oslo', days: 3 } }),
      ]);
      await store(other, [factorial(-5, at(0, '08:00:00'))]);

      const ranges = [...(await evidence.findArgumentRanges(projectId))].sort((a, b) =>
        `${a.tool}${a.argumentPath}`.localeCompare(`${b.tool}${b.argumentPath}`),
      );
      expect(ranges).toEqual([
        { projectId, tool: 'factorial', argumentPath: '/n', successCount: 3, minValue: 0, maxValue: 20 },
        { projectId, tool: 'get_weather', argumentPath: '/days', successCount: 1, minValue: 3, maxValue: 3 },
      ]);
    });

    it("reads the arguments of the asked events of the project only, by id, never another project's event of that id", async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [factorial(5, at(0, '08:00:00'), { id: 'e-1' }), anEvent({ id: 'e-2', occurredAt: at(0, '08:00:00') })]);
      await store(other, [factorial(99, at(0, '08:00:00'), { id: 'e-1' }), anEvent({ id: 'theirs', occurredAt: at(0, '08:00:00') })]);

      expect(await evidence.findEventArguments(projectId, ['e-1', 'e-2', 'theirs', 'never-sent'])).toEqual(
        new Map<string, unknown>([
          ['e-1', { n: 5 }],
          ['e-2', { city: 'Paris' }],
        ]),
      );
      expect(await evidence.findEventArguments(projectId, [])).toEqual(new Map());
    });
  });

  describe('RecommendationRepository', () => {
    const aDraft = (overrides: Partial<RecommendationDraft> = {}): RecommendationDraft => ({
      tool: 'factorial',
      kind: 'learned_limit',
      evidenceKey: 'learned_limit:/n',
      text: "'n' above 20 fails (overflow).",
      confidence: 0.9,
      evidence: {
        count: 3,
        share: 0.5,
        firstSeen: at(-1, '10:00:00'),
        lastSeen: at(0, '11:00:00'),
        exampleEventIds: ['f-1'],
        errorGroupIds: [],
        match: OVERFLOW,
        limit: 20,
      },
      ...overrides,
    });

    it("stores a new recommendation as proposed and refreshes a known one's text and evidence, keeping a human's decision", async () => {
      const projectId = await aProject();
      const [created] = await recommendations.upsertRecommendations(projectId, [aDraft()]);
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        tool: 'factorial',
        kind: 'learned_limit',
        evidenceKey: 'learned_limit:/n',
        text: "'n' above 20 fails (overflow).",
        evidence: aDraft().evidence,
        confidence: 0.9,
        status: 'proposed',
        warningId: null,
        appliedVersion: null,
        appliedAt: null,
        effect: null,
        approvedAt: null,
      });
      expect(await recommendations.findRecommendation(projectId, created.id)).toEqual(created);

      await recommendations.markDismissed(projectId, created.id, new Date());
      const refreshed = aDraft({ text: "'n' above 19 fails (overflow).", confidence: 0.95, evidence: { ...aDraft().evidence, count: 9 } });
      const [again] = await recommendations.upsertRecommendations(projectId, [refreshed]);
      expect(again).toEqual({ ...created, text: refreshed.text, confidence: 0.95, evidence: refreshed.evidence, status: 'dismissed' });
    });

    it("lists a project's recommendations by id, filtered by status and tool, a page after a given id", async () => {
      const projectId = await aProject();
      const other = await aProject();
      const stored = await recommendations.upsertRecommendations(projectId, [
        aDraft(),
        aDraft({ evidenceKey: 'learned_limit:/k' }),
        aDraft({ tool: 'prime_factorization', kind: 'wrong_argument_name', evidenceKey: 'wrong_argument_name:/numbers' }),
      ]);
      await recommendations.upsertRecommendations(other, [aDraft()]);
      const ids = stored.map((r) => r.id).sort();
      const prime = stored.find((r) => r.tool === 'prime_factorization')!;
      await recommendations.markApplied(projectId, prime.id, randomUUID(), 2, new Date());
      const list = async (filter: { status?: string; tool?: string; after?: string; limit?: number }) =>
        (await recommendations.listRecommendations(projectId, { limit: 50, ...filter })).map((r) => r.id);

      expect(await list({})).toEqual(ids);
      expect(await list({ limit: 2 })).toEqual(ids.slice(0, 2));
      expect(await list({ after: ids[1] })).toEqual(ids.slice(2));
      expect(await list({ status: 'applied' })).toEqual([prime.id]);
      expect(await list({ status: 'proposed', tool: 'factorial' })).toEqual(ids.filter((id) => id !== prime.id));
      expect(await list({ tool: 'get_weather' })).toEqual([]);
    });

    it("records a person's approval once, of a proposed recommendation of its own project only", async () => {
      const projectId = await aProject();
      const other = await aProject();
      const [proposed, applied] = await recommendations.upsertRecommendations(projectId, [
        aDraft(),
        aDraft({ evidenceKey: 'learned_limit:/k' }),
      ]);
      await recommendations.markApplied(projectId, applied.id, randomUUID(), 2, new Date());
      const at = new Date('2026-11-28T06:00:00.000Z');
      expect(await recommendations.markApproved(other, proposed.id, at)).toBe(false);
      expect(await recommendations.markApproved(projectId, applied.id, at)).toBe(false);
      expect(await recommendations.markApproved(projectId, proposed.id, at)).toBe(true);
      expect(await recommendations.markApproved(projectId, proposed.id, new Date())).toBe(false);
      expect(await recommendations.findRecommendation(projectId, proposed.id)).toMatchObject({ status: 'proposed', approvedAt: at });
      expect(await recommendations.findRecommendation(projectId, applied.id)).toMatchObject({ approvedAt: null });
    });

    it('records an applied warning and its measured effect, and a dismissal takes it out of the applied ones', async () => {
      const projectId = await aProject();
      const other = await aProject();
      const [applied, proposed] = await recommendations.upsertRecommendations(projectId, [
        aDraft(),
        aDraft({ evidenceKey: 'learned_limit:/k' }),
      ]);
      const [theirs] = await recommendations.upsertRecommendations(other, [aDraft()]);
      const warningId = randomUUID();
      const appliedAt = new Date('2026-05-11T00:00:00.000Z');
      await recommendations.markApplied(projectId, applied.id, warningId, 2, appliedAt);
      await recommendations.markApplied(other, theirs.id, randomUUID(), 1, appliedAt);
      const effect = { verdict: 'helped', withWarning: { calls: 40, mistakes: 1 }, withoutWarning: { calls: 60, mistakes: 12 } };
      await recommendations.recordEffect(projectId, applied.id, effect);
      // a recommendation is found by its project and id: another project's id is not one of this project's
      await expect(recommendations.recordEffect(projectId, theirs.id, effect)).rejects.toThrow();
      await expect(recommendations.markDismissed(other, applied.id, new Date())).rejects.toThrow();

      const expected = { ...applied, status: 'applied', warningId, appliedVersion: 2, appliedAt, effect };
      expect(await recommendations.findRecommendation(projectId, applied.id)).toEqual(expected);
      expect(await recommendations.findAppliedRecommendations(projectId)).toEqual([expected]);
      expect(await recommendations.findRecommendation(projectId, proposed.id)).toMatchObject({ status: 'proposed', effect: null });
      expect(await recommendations.findRecommendation(projectId, theirs.id)).toBeNull();

      const finalEffect = { ...effect, verdict: 'no_effect' };
      await recommendations.markDismissed(projectId, applied.id, new Date(), finalEffect);
      expect(await recommendations.findRecommendation(projectId, applied.id)).toEqual({
        ...expected,
        status: 'dismissed',
        effect: finalEffect,
      });
      expect(await recommendations.findAppliedRecommendations(projectId)).toEqual([]);
    });

    it("stores a project's policy and reads it back as set, changed field by field, never another project's", async () => {
      const projectId = await aProject();
      const other = await aProject();
      expect(await recommendations.findPolicy(projectId)).toBeNull();
      const first: ProjectPolicyValues = {
        autoApply: false,
        minOccurrences: 10,
        minShare: 0.2,
        autoApplyKinds: ['learned_limit', 'wrong_argument_name'],
        autoRetire: false,
        warningTokenCap: 80,
        reviewMode: true,
      };
      const second: ProjectPolicyValues = {
        autoApply: true,
        minOccurrences: 3,
        minShare: 0.05,
        autoApplyKinds: [],
        autoRetire: true,
        warningTokenCap: 120,
        reviewMode: false,
      };
      // a project without a row takes the defaults for the fields the patch lacks
      expect(await recommendations.updatePolicy(projectId, { minOccurrences: 10 }, { ...first, minOccurrences: 1 })).toEqual(first);
      expect(await recommendations.findPolicy(projectId)).toEqual(first);
      expect(await recommendations.updatePolicy(projectId, second, first)).toEqual(second);
      expect(await recommendations.findPolicy(projectId)).toEqual(second);
      expect(await recommendations.updatePolicy(projectId, { autoApply: false }, first)).toEqual({ ...second, autoApply: false });
      expect(await recommendations.findPolicy(other)).toBeNull();
    });
  });

  describe('StatsQueries.findUsage (day buckets)', () => {
    it('takes a day from daily_tool_stats only when the nightly computed it after it ended, else from the hourly rollups', async () => {
      const projectId = await aProject();
      const other = await aProject();
      await store(projectId, [
        factorial(3, at(0, '08:00:00'), { durationMs: 2 }),
        factorial(25, at(0, '09:00:00'), { durationMs: 1 }),
        factorial(4, at(1, '10:00:00'), { durationMs: 3 }),
        timeout('get_weather', at(1, '11:00:00'), { durationMs: 30_000 }),
        anEvent({ tool: 'get_time', occurredAt: at(2, '12:00:00') }),
      ]);
      await store(other, [factorial(5, at(0, '08:00:00'))]);
      for (const [project, offsetDays] of [
        [projectId, 0],
        [projectId, 1],
        [other, 0],
      ] as const) {
        const stats = (await dailyStats.sumToolDays(project, midnight(offsetDays))).map(computeDailyToolStat);
        await dailyStats.replaceDailyToolStats(project, midnight(offsetDays), stats);
      }
      // the stored days say 1000 more calls than the rollups, so each read shows where its numbers came from; day 1 was
      // computed at noon, before it was over: its row must not be used
      await medium.db.sql.query(`UPDATE daily_tool_stats SET calls = calls + 1000 WHERE project_id = ANY($1::uuid[])`, [
        [projectId, other],
      ]);
      await medium.db.sql.query(`UPDATE daily_tool_stats SET computed_at = $2 WHERE project_id = $1 AND day = $3`, [
        projectId,
        at(1, '12:00:00'),
        dayAt(1),
      ]);

      const range = { from: midnight(0), to: midnight(3), bucket: 'day' as const };
      const usage = (await statsQueries.findUsage(projectId, range)).map((row) => ({
        ...row,
        start: row.start.toISOString().slice(0, 10),
      }));
      expect(byTool(usage).sort((a, b) => a.start.localeCompare(b.start))).toEqual([
        {
          tool: 'factorial',
          start: dayAt(0),
          calls: 1002,
          errors: 1,
          latencyBuckets: bucketsOf([2, 1]),
          errorsByCategory: { overflow: 1 },
        },
        { tool: 'factorial', start: dayAt(1), calls: 1, errors: 0, latencyBuckets: bucketsOf([3]), errorsByCategory: {} },
        {
          tool: 'get_weather',
          start: dayAt(1),
          calls: 1,
          errors: 1,
          latencyBuckets: bucketsOf([30_000]),
          errorsByCategory: { timeout: 1 },
        },
        { tool: 'get_time', start: dayAt(2), calls: 1, errors: 0, latencyBuckets: expect.any(Array), errorsByCategory: {} },
      ]);
      const oneTool = await statsQueries.findUsage(projectId, { ...range, to: midnight(1) }, 'factorial');
      expect(oneTool.map((row) => [row.start.toISOString(), row.calls])).toEqual([[midnight(0).toISOString(), 1002]]);
      expect(await statsQueries.findUsage(projectId, { ...range, from: midnight(-5), to: midnight(-4) })).toEqual([]);
    });
  });

  describe('JobRunRepository', () => {
    it('queues one run per project, job and day while one is queued or running, and a new one once it has an outcome', async () => {
      const projectId = await aProject();
      const other = await aProject();
      const [first, second] = await Promise.all([1, 2].map(() => jobRuns.findOrQueueRun(projectId, 'nightly', midnight(0), 'api')));
      expect([first.isNew, second.isNew].sort()).toEqual([false, true]);
      expect(second.run.id).toBe(first.run.id);
      expect(first.run).toMatchObject({ projectId, job: 'nightly', day: midnight(0), trigger: 'api', status: 'queued', finishedAt: null });

      expect((await jobRuns.findOrQueueRun(projectId, 'nightly', midnight(1), 'api')).isNew).toBe(true);
      expect((await jobRuns.findOrQueueRun(other, 'nightly', midnight(0), 'api')).isNew).toBe(true);

      expect(await jobRuns.startQueuedRun(other, first.run.id)).toBe(false);
      expect(await jobRuns.startQueuedRun(projectId, first.run.id)).toBe(true);
      expect(await jobRuns.findOrQueueRun(projectId, 'nightly', midnight(0), 'api')).toMatchObject({
        run: { id: first.run.id, status: 'running' },
        isNew: false,
      });
      await jobRuns.finishRun(projectId, first.run.id, 'succeeded', { tools: 2 }, null);
      const after = await jobRuns.findOrQueueRun(projectId, 'nightly', midnight(0), 'api');
      expect(after.isNew).toBe(true);
      expect(after.run.id).not.toBe(first.run.id);
    });

    it('moves a queued run to running and to its outcome, and never starts a run that has one', async () => {
      const projectId = await aProject();
      const { run: queued } = await jobRuns.findOrQueueRun(projectId, 'nightly', midnight(0), 'api');
      expect(await jobRuns.startQueuedRun(projectId, queued.id)).toBe(true);
      const running = await jobRuns.findRun(projectId, queued.id);
      expect(running).toMatchObject({ status: 'running', finishedAt: null, counts: null, error: null });
      expect(running!.startedAt.getTime()).toBeGreaterThanOrEqual(queued.startedAt.getTime());
      // a run found running is taken over (its worker died): started again from now
      expect(await jobRuns.startQueuedRun(projectId, queued.id)).toBe(true);

      const finished = await jobRuns.finishRun(projectId, queued.id, 'succeeded', { tools: 2, recommendations: 1 }, null);
      expect(finished).toMatchObject({ id: queued.id, status: 'succeeded', counts: { tools: 2, recommendations: 1 }, error: null });
      expect(finished.finishedAt).toBeInstanceOf(Date);
      expect(await jobRuns.startQueuedRun(projectId, queued.id)).toBe(false);
      expect(await jobRuns.findRun(projectId, queued.id)).toEqual(finished);

      const scheduled = await jobRuns.insertRunningRun(projectId, 'nightly', midnight(1), 'schedule');
      const failed = await jobRuns.finishRun(projectId, scheduled, 'failed', null, 'database went away');
      expect(failed).toMatchObject({ trigger: 'schedule', day: midnight(1), status: 'failed', counts: null, error: 'database went away' });
      expect(await jobRuns.startQueuedRun(projectId, scheduled)).toBe(false);
    });

    it("lists a project's runs newest first, paged on (startedAt, id) without losing or repeating runs that started together", async () => {
      const projectId = await aProject();
      const other = await aProject();
      const startedAt = ['2026-05-10T02:00:00.000Z', '2026-05-11T02:00:00.000Z', '2026-05-11T02:00:00.000Z', '2026-05-11T02:00:00.000Z'];
      startedAt.push('2026-05-12T02:00:00.000Z');
      const inserted: JobRun[] = [];
      for (const [i, start] of startedAt.entries()) {
        const id = await jobRuns.insertRunningRun(projectId, 'nightly', midnight(i), 'schedule');
        await medium.db.sql.query('UPDATE job_runs SET started_at = $2 WHERE id = $1', [id, start]);
        inserted.push((await jobRuns.findRun(projectId, id))!);
      }
      const theirs = await jobRuns.insertRunningRun(other, 'nightly', midnight(0), 'schedule');
      const newestFirst = [...inserted]
        .sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((run) => run.id);

      const pages: string[][] = [];
      let before: { startedAt: Date; id: string } | undefined;
      for (;;) {
        const page = await jobRuns.listRuns(projectId, 2, before);
        if (page.length === 0) break;
        pages.push(page.map((run) => run.id));
        before = page[page.length - 1];
      }
      expect(pages.flat()).toEqual(newestFirst);
      expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
      expect(await jobRuns.findRun(projectId, theirs)).toBeNull();
    });
  });
});
