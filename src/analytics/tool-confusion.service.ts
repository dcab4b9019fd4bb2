import { Injectable } from '@nestjs/common';
import { RegistryService } from '../registry/registry.service';
import { RECOMMENDATION_WINDOW_DAYS, RecommendationDraft } from './recommendation-drafts';
import { RecommendationRepository } from './recommendation.repository';
import { countConfusions, SessionCall } from './tool-confusion';
import { deriveConfusionRecommendation } from './tool-confusion-rules';
import { ToolConfusionRepository } from './tool-confusion.repository';

const DAY_MS = 86_400_000;
/** Calls read per project and day (the first by time): the nightly's memory and time stay bounded whatever agents did. */
export const MAX_CONFUSION_CALLS_PER_DAY = 20_000;
/** Pairs counted and recommended per project: the most confused first, then the pairs open recommendations track. */
export const MAX_CONFUSED_PAIRS = 50;

/**
 * The nightly's tool-confusion step: finds the day's confusions in its sessions, replaces the day's counts per pair
 * and version (with the denominators of the pairs open recommendations are about), and drafts one warning per pair
 * confused in the recommendation window, each naming what both tools are for in their own registered words.
 */
@Injectable()
export class ToolConfusionService {
  constructor(
    private readonly confusions: ToolConfusionRepository,
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
  ) {}

  async findConfusionDrafts(projectId: string, day: Date): Promise<RecommendationDraft[]> {
    const registered = new Set(await this.registry.listActiveToolNames(projectId));
    const open = await this.recommendations.findOpenRecommendationsOfKind(projectId, 'tool_confusion');
    const tracked = open
      .flatMap((r) => (typeof r.evidence.confusedWith === 'string' ? [{ tool: r.tool, confusedWith: r.evidence.confusedWith }] : []))
      .slice(0, MAX_CONFUSED_PAIRS);
    const { counts, confusions } = countConfusions(
      groupBySession(await this.confusions.findSessionCalls(projectId, day, MAX_CONFUSION_CALLS_PER_DAY)),
      registered,
      tracked,
    );
    const kept = keptPairs(counts, tracked);
    await this.confusions.replaceDayCounts(
      projectId,
      day,
      counts.filter((row) => kept.has(`${row.tool}\u0000${row.confusedWith}`)),
    );
    const until = new Date(day.getTime() + DAY_MS);
    const from = new Date(until.getTime() - RECOMMENDATION_WINDOW_DAYS * DAY_MS);
    const pairs = (await this.confusions.sumConfusedPairs(projectId, from, until, MAX_CONFUSED_PAIRS)).filter(
      (pair) => registered.has(pair.tool) && registered.has(pair.confusedWith),
    );
    if (pairs.length === 0) return [];
    const descriptions = await this.registry.findToolDescriptions(projectId, [...new Set(pairs.flatMap((p) => [p.tool, p.confusedWith]))]);
    return pairs.map((pair) => {
      const exampleEventIds = confusions
        .filter((c) => c.tool === pair.tool && c.confusedWith === pair.confusedWith)
        .slice(0, 5)
        .map((c) => c.eventId);
      return deriveConfusionRecommendation({ ...pair, exampleEventIds }, descriptions);
    });
  }
}

function groupBySession(calls: readonly SessionCall[]): Map<string, SessionCall[]> {
  const sessions = new Map<string, SessionCall[]>();
  for (const call of calls) {
    const list = sessions.get(call.sessionId);
    if (list) list.push(call);
    else sessions.set(call.sessionId, [call]);
  }
  return sessions;
}

/** The tracked pairs and the most confused others, MAX_CONFUSED_PAIRS in all. */
function keptPairs(
  counts: ReadonlyArray<{ tool: string; confusedWith: string; confusedSessions: number }>,
  tracked: ReadonlyArray<{ tool: string; confusedWith: string }>,
): Set<string> {
  const kept = new Set(tracked.map((pair) => `${pair.tool}\u0000${pair.confusedWith}`));
  const confused = new Map<string, number>();
  for (const row of counts) {
    const key = `${row.tool}\u0000${row.confusedWith}`;
    confused.set(key, (confused.get(key) ?? 0) + row.confusedSessions);
  }
  const ranked = [...confused.entries()].filter(([, n]) => n > 0).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  for (const [key] of ranked) {
    if (kept.size >= MAX_CONFUSED_PAIRS) break;
    kept.add(key);
  }
  return kept;
}
