import { Category, computeFingerprint, Subtype } from '../diagnosis';
import { errorGroupIdFor } from './error-group-id';
import { EventDiagnosis, StoredEventRow } from './stored-event';

/** The evidence of a failure whose category a person's label for its message template decided (docs/unknown-lane.md). */
export const LABEL_EVIDENCE = 'label';

export interface TemplateLabel {
  category: Category;
  subtype: Subtype | null;
}

/**
 * The diagnosis of an `unknown` failure whose template a person labelled: the label's category and subtype, and the
 * error group those make (the fingerprint holds the category), everything else as the categorizer found it.
 */
export function labelledDiagnosis(
  projectId: string,
  row: StoredEventRow & { diagnosis: EventDiagnosis },
  label: TemplateLabel,
): EventDiagnosis {
  const { diagnosis } = row;
  const fingerprint = computeFingerprint({
    tool: row.tool,
    category: label.category,
    subtype: label.subtype,
    argumentPath: diagnosis.argumentPath,
    messageTemplate: diagnosis.messageTemplate,
  });
  return {
    ...diagnosis,
    category: label.category,
    subtype: label.subtype,
    evidence: LABEL_EVIDENCE,
    fingerprint,
    errorGroupId: errorGroupIdFor(projectId, fingerprint),
  };
}
