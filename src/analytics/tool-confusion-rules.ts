/**
 * The warning on a tool the model takes for another (see tool-confusion): "For "<B's purpose>" use `B`; `A` is for
 * "<A's purpose>"." Each purpose is the first sentence of that tool's own registered description, bounded and quoted;
 * a purpose that is not plain prose, or a name that is not a plain identifier, waits for a person's review. Pure.
 */

import { isPlainName, UntrustedFragments } from '@toolcoach/core';
import { confidenceOf, RecommendationDraft, reviewMark } from './recommendation-drafts';

/** A purpose longer than this is cut: the warning names what a tool is for, it does not repeat its description. */
export const MAX_PURPOSE_CHARS = 100;
/** Sessions named in a recommendation's evidence. */
const MAX_EVIDENCE_SESSIONS = 20;
// letters, digits, spaces and the punctuation of ordinary sentences: no markup, quotes, backticks or braces
const PLAIN_PROSE = /^[A-Za-z0-9 ,.;:'()/%+_-]*$/;

/** One ordered pair's confusions over the recommendation window, as the repository sums them. */
export interface ConfusedPair {
  tool: string;
  confusedWith: string;
  confusions: number;
  confusedSessions: number;
  /** Sessions that called either tool in the window. */
  sessions: number;
  firstSeen: Date;
  lastSeen: Date;
  exampleSessionIds: string[];
  exampleEventIds: string[];
}

/**
 * The first sentence of a description, on one line, at most MAX_PURPOSE_CHARS; '' for an empty one. Sentences end at
 * '.', '!' or '?' followed by a space or the end, or at a blank line.
 */
export function purposeOf(description: string): string {
  const firstParagraph = description.trim().split(/\n\s*\n/)[0] ?? '';
  const oneLine = firstParagraph.replace(/\s+/g, ' ').trim();
  const end = /[.!?](?= |$)/.exec(oneLine);
  const sentence = (end ? oneLine.slice(0, end.index) : oneLine).trim();
  return sentence.length <= MAX_PURPOSE_CHARS ? sentence : `${sentence.slice(0, MAX_PURPOSE_CHARS).trimEnd()}…`;
}

/** A purpose as the warning quotes it: in double quotes, its own quotes and backticks made single quotes. */
function quotePurpose(fragments: UntrustedFragments, tool: string, purpose: string): string {
  const withoutEllipsis = purpose.endsWith('…') ? purpose.slice(0, -1) : purpose;
  if (!PLAIN_PROSE.test(withoutEllipsis)) fragments.freeText(`the description of ${JSON.stringify(tool.slice(0, 64))}`);
  return `"${purpose.replace(/["`]/g, "'").replace(/[^\x20-\x7e…]/g, '?')}"`;
}

/** The draft of one pair: a warning on the tool called first, naming the tool that answered and what each is for. */
export function deriveConfusionRecommendation(pair: ConfusedPair, descriptions: ReadonlyMap<string, string>): RecommendationDraft {
  const fragments = new UntrustedFragments();
  const wrong = toolNameText(fragments, pair.tool);
  const rightName = toolNameText(fragments, pair.confusedWith);
  const rightPurpose = purposeOf(descriptions.get(pair.confusedWith) ?? '');
  const wrongPurpose = purposeOf(descriptions.get(pair.tool) ?? '');
  const forRight =
    rightPurpose === '' ? `For what ${rightName} answers` : `For ${quotePurpose(fragments, pair.confusedWith, rightPurpose)}`;
  const forWrong = wrongPurpose === '' ? '' : `; ${wrong} is for ${quotePurpose(fragments, pair.tool, wrongPurpose)}`;
  return {
    tool: pair.tool,
    kind: 'tool_confusion',
    evidenceKey: `tool_confusion:${pair.confusedWith}`,
    text: `${forRight} use ${rightName}${forWrong}.`,
    confidence: confidenceOf(pair.confusedSessions, pair.sessions),
    evidence: {
      count: pair.confusions,
      share: pair.sessions > 0 ? Math.round((pair.confusedSessions / pair.sessions) * 100) / 100 : 0,
      firstSeen: pair.firstSeen.toISOString(),
      lastSeen: pair.lastSeen.toISOString(),
      exampleEventIds: pair.exampleEventIds.slice(0, 5),
      errorGroupIds: [],
      match: { categories: [], subtypes: [], argumentPaths: [], confusedWith: pair.confusedWith },
      confusedWith: pair.confusedWith,
      confusedSessions: pair.confusedSessions,
      sessions: pair.sessions,
      sessionIds: pair.exampleSessionIds.slice(0, MAX_EVIDENCE_SESSIONS),
      ...reviewMark(fragments),
    },
  };
}

/** A registered tool name, in backticks when it is a plain identifier; otherwise bounded JSON, marked for review. */
function toolNameText(fragments: UntrustedFragments, name: string): string {
  const quoted = fragments.name('tool name', name);
  return isPlainName(name) ? `\`${name}\`` : quoted;
}
