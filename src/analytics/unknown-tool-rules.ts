/**
 * Calls to a tool name that is not registered: when a registered tool is close (see intended-tool), a warning on that
 * tool naming both; otherwise a project-level note for people, since no tool's description can carry it. Pure.
 */

import type { IntendedToolMatch } from './intended-tool';
import { confidenceOf, evidenceOf, GroupEvidence, RecommendationDraft, reviewMark } from './recommendation-drafts';
import { isPlainName, UntrustedFragments } from '@toolcoach/core';

export const UNKNOWN_TOOL_NOTE = 'unknown_tool';

export interface UnknownToolNote {
  subject: string;
  text: string;
  evidence: {
    count: number;
    firstSeen: string;
    lastSeen: string;
    exampleEventIds: string[];
    errorGroupIds: string[];
    requiresReview?: string;
  };
}

/**
 * The warning on the intended tool: "This tool is `prime_factorization`; there is no `prime_factorise`." Its mistakes
 * are calls to the called name, so its match names it (`calledTool`), and its share is of the calls that went wrong
 * for this tool either way (the called name's plus the tool's own errors).
 */
export function deriveMisnamedToolRecommendation(
  calledName: string,
  groups: readonly GroupEvidence[],
  match: IntendedToolMatch,
  intendedToolErrors: number,
): RecommendationDraft {
  const fragments = new UntrustedFragments();
  const called = toolNameText(fragments, calledName);
  const count = groups.reduce((n, g) => n + g.count, 0);
  const evidence = evidenceOf([...groups], count + intendedToolErrors);
  return {
    tool: match.tool,
    kind: 'misnamed_tool',
    evidenceKey: `misnamed_tool:${calledName}`,
    text: `This tool is \`${match.tool}\`; there is no ${called}.`,
    confidence: Math.round(confidenceOf(count, count + intendedToolErrors) * match.score * 100) / 100,
    evidence: {
      ...evidence,
      match: { categories: ['unknown_tool'], subtypes: [''], argumentPaths: [''], calledTool: calledName },
      calledTool: calledName,
      intendedTool: match.tool,
      nameMatch: {
        score: match.score,
        nameSimilarity: match.nameSimilarity,
        sharedWords: match.sharedWords,
        nextCallShare: match.nextCallShare,
      },
      ...reviewMark(fragments),
    },
  };
}

/** The note for a called name close to no registered tool: what was called, how often, and what to do about it. */
export function describeUnknownTool(calledName: string, groups: readonly GroupEvidence[]): UnknownToolNote {
  const fragments = new UntrustedFragments();
  const called = toolNameText(fragments, calledName);
  const evidence = evidenceOf([...groups], 0);
  const count = evidence.count;
  return {
    subject: calledName,
    text:
      `${count} ${count === 1 ? 'call' : 'calls'} to ${called}, which is not a registered tool and is like none of them: ` +
      'register it if the agent should have it, or stop offering it to the model.',
    evidence: {
      count,
      firstSeen: evidence.firstSeen,
      lastSeen: evidence.lastSeen,
      exampleEventIds: evidence.exampleEventIds,
      errorGroupIds: evidence.errorGroupIds,
      ...reviewMark(fragments),
    },
  };
}

/** A tool name from events, in backticks when it is a plain identifier; otherwise bounded JSON, marked for review. */
function toolNameText(fragments: UntrustedFragments, name: string): string {
  const quoted = fragments.name('called tool name', name);
  return isPlainName(name) ? `\`${name}\`` : quoted;
}
