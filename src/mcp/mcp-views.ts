import type { RecommendationView } from '../analytics/recommendations.service';
import type { CanaryView } from '../rollout/canary-control.service';
import { quoteJson, quoteText } from './mcp-answer-budget';

/** A recommendation as the MCP tools answer it: its evidence and effect as bounded JSON. */
export function recommendationView(recommendation: RecommendationView) {
  return {
    id: recommendation.id,
    tool: recommendation.tool,
    kind: recommendation.kind,
    status: recommendation.status,
    text: quoteText(recommendation.text),
    confidence: recommendation.confidence,
    evidence: quoteJson(recommendation.evidence),
    waitingFor: recommendation.waitingFor,
    warningId: recommendation.warningId,
    appliedVersion: recommendation.appliedVersion,
    appliedAt: recommendation.appliedAt,
    effect: quoteJson(recommendation.effect),
  };
}

/** A canary with its decision and the live numbers of each side. */
export function canaryView(canary: CanaryView) {
  return {
    id: canary.id,
    tool: canary.tool,
    status: canary.status,
    design: canary.design,
    previousVersion: canary.previousVersion,
    canaryVersion: canary.canaryVersion,
    share: canary.share,
    minCalls: canary.minCalls,
    looks: canary.looks,
    maxLooks: canary.maxLooks,
    startedAt: canary.startedAt,
    decidedAt: canary.decidedAt,
    decision: quoteJson(canary.decision),
    sides: canary.sides,
  };
}
