import { Injectable } from '@nestjs/common';
import { RegistryService } from '../registry/registry.service';
import { MAX_LOOPS_PER_DAY } from './loop-rules';
import { MistakeEvidenceRepository } from './mistake-evidence.repository';
import type { RecommendationDraft } from './recommendation-drafts';
import { deriveRepeatRecommendation, MAX_IDENTICAL_CALLS, REPEAT_WINDOW_DAYS } from './repeat-rules';
import { SessionRollupRepository } from './session-rollup.repository';

const DAY_MS = 86_400_000;

/**
 * The nightly's repeated calls (docs/description-cost.md): the day's session rollups per tool and version, and a
 * repeated_call recommendation for each registered tool whose sessions kept repeating the same call in the window.
 */
@Injectable()
export class RepeatedCallsService {
  constructor(
    private readonly sessions: SessionRollupRepository,
    private readonly evidence: MistakeEvidenceRepository,
    private readonly registry: RegistryService,
  ) {}

  /** Re-computing a day replaces its rows. */
  rollUpSessions(projectId: string, day: Date): Promise<void> {
    return this.sessions.replaceSessionRollups(projectId, day, MAX_IDENTICAL_CALLS);
  }

  /** Drafts for the tools in `registeredTools` (a name that is no registered tool has no description to warn in). */
  async deriveRepeatDrafts(projectId: string, day: Date, registeredTools: ReadonlySet<string>): Promise<RecommendationDraft[]> {
    const until = new Date(day.getTime() + DAY_MS);
    const from = new Date(until.getTime() - REPEAT_WINDOW_DAYS * DAY_MS);
    const repeats = (await this.sessions.sumToolRepeats(projectId, from, until)).filter(
      (tool) => tool.repeatedCalls > 0 && registeredTools.has(tool.tool),
    );
    if (repeats.length === 0) return [];
    const [schemas, examples] = await Promise.all([
      this.registry.findToolSchemas(
        projectId,
        repeats.map((tool) => tool.tool),
      ),
      this.evidence.findRepeatedCalls(projectId, day, MAX_IDENTICAL_CALLS, MAX_LOOPS_PER_DAY, false),
    ]);
    return repeats.flatMap((tool) => {
      const draft = deriveRepeatRecommendation({
        repeats: tool,
        schema: schemas.get(tool.tool) ?? null,
        examples: examples.filter((example) => example.tool === tool.tool),
      });
      return draft ? [draft] : [];
    });
  }
}
