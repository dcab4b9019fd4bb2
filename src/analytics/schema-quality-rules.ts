import { escapePointerSegment } from '@toolcoach/core';
/**
 * Turns a tool's quality report (src/registry/quality/tool-quality.ts) into recommendations of kind schema_quality, before the
 * tool's first mistake. A finding whose fix is prose the description can carry becomes a warning candidate, with the
 * mistakes it targets named so its effect is measured like any learned warning's; a finding that needs a schema change
 * is proposed only, since the tool's code owns its schema. Pure: data in, drafts out.
 */

import { createHash } from 'node:crypto';
import type { QualityFinding, QualitySeverity, ToolQualityReport } from '../registry/quality/tool-quality.types';
import { pluralOf } from '../registry/quality/word-forms';
import type { MistakeMatch, RecommendationDraft } from './recommendation-drafts';

/** Why a schema change is never applied as a warning (kept in the evidence as `proposalOnly`). */
export const SCHEMA_CHANGE_ONLY = "a schema change: the tool's code owns its schema, so a person applies it there";

const MAX_EVIDENCE_KEY_CHARS = 500;
const CONFIDENCE: Record<QualitySeverity, number> = { high: 0.9, medium: 0.7, low: 0.5 };

const ARGUMENT_SUBTYPES = ['unknown_argument', 'missing_argument', 'type_mismatch', 'malformed_arguments'];

/**
 * One draft per finding (the first of those sharing a kind and path: the report lists the most expected impact
 * first). `day` dates the evidence: these drafts have no occurrences, only the definition as it was that day.
 */
export function deriveSchemaQualityRecommendations(report: ToolQualityReport, day: Date): RecommendationDraft[] {
  const drafts = new Map<string, RecommendationDraft>();
  for (const finding of report.findings) {
    const evidenceKey = evidenceKeyOf(finding);
    if (drafts.has(evidenceKey)) continue;
    drafts.set(evidenceKey, {
      tool: report.tool,
      kind: 'schema_quality',
      evidenceKey,
      text: finding.addition ?? finding.fix,
      confidence: CONFIDENCE[finding.severity],
      evidence: {
        count: 0,
        share: 0,
        firstSeen: day.toISOString(),
        lastSeen: day.toISOString(),
        exampleEventIds: [],
        errorGroupIds: [],
        match: targetedMistakes(finding),
        finding: { kind: finding.kind, path: finding.path, severity: finding.severity, message: finding.message, fix: finding.fix },
        ...(finding.addition === undefined ? { proposalOnly: SCHEMA_CHANGE_ONLY } : {}),
      },
    });
  }
  return [...drafts.values()];
}

export function evidenceKeyOf(finding: Pick<QualityFinding, 'kind' | 'path'>): string {
  const key = `schema_quality:${finding.kind}:${finding.path}`;
  if (key.length <= MAX_EVIDENCE_KEY_CHARS) return key;
  // a property name long enough to overflow the column: still one stable key per path
  return `schema_quality:${finding.kind}:sha256:${createHash('sha256').update(finding.path).digest('hex')}`;
}

/** The stored mistakes a finding's warning should make rarer: what the effect measurement compares before and after. */
export function targetedMistakes(finding: Pick<QualityFinding, 'kind' | 'path'>): MistakeMatch {
  const argument = argumentOf(finding.path);
  switch (finding.kind) {
    case 'batchable_single_value':
    case 'description_contradicts_schema':
      // one value sent as a list under the invented plural name, as a list under the real name, or not at all
      return {
        categories: ['argument_mismatch'],
        subtypes: ['unknown_argument', 'missing_argument', 'type_mismatch'],
        argumentPaths: argument ? [`/${escapePointerSegment(argument)}`, `/${escapePointerSegment(pluralOf(argument))}`] : [''],
      };
    case 'name_differs_from_description':
      // the model names the argument with the description's word, whatever it is
      return { categories: ['argument_mismatch'], subtypes: ['unknown_argument'], argumentPaths: [], isAnyArgumentPath: true };
    default:
      // no example, a confusable sibling: any argument the model got wrong
      return { categories: ['argument_mismatch'], subtypes: ARGUMENT_SUBTYPES, argumentPaths: [], isAnyArgumentPath: true };
  }
}

/** '/parameters/properties/number' -> 'number'; null for a path that is not one top-level argument. */
function argumentOf(path: string): string | null {
  const match = /^\/parameters\/properties\/([^/]+)$/.exec(path);
  return match ? match[1].replaceAll('~1', '/').replaceAll('~0', '~') : null;
}
