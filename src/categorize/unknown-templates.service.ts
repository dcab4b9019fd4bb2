import { Injectable } from '@nestjs/common';
import { categoryOfSubtype, Category, Subtype } from '../diagnosis';
import { ApiError, notFound } from '../infra/http/api-error';
import { encodeCursor } from '../infra/http/cursor';
import { boundedPage } from '../infra/http/page-bytes';
import { TemplateLabel } from './template-labels';
import { UnknownLaneRepository, UnknownTemplateRow } from './unknown-lane.repository';

/** Labels a project may give at most: each is one more row the worker may read for an `unknown` failure. */
export const MAX_LABELS_PER_PROJECT = 1000;

/** The categories whose failures carry a subtype (shared/taxonomy.md). */
const CATEGORIES_WITH_SUBTYPES: ReadonlySet<Category> = new Set(['argument_mismatch', 'out_of_range']);

export interface TemplateView {
  id: string;
  template: string;
  count: number;
  firstSeen: string;
  lastSeen: string;
  sampleEventIds: string[];
  example: { tool: string; errorType: string | null; message: string };
  label: { category: Category; subtype: Subtype | null; labelledAt: string } | null;
}

/** The unknown lane of a project (docs/unknown-lane.md): its templates, their labels, and those as fixtures. */
@Injectable()
export class UnknownTemplatesService {
  constructor(private readonly lane: UnknownLaneRepository) {}

  async listTemplates(projectId: string, page: { after?: { lastSeen: Date; id: string }; limit: number }) {
    const rows = await this.lane.listTemplates(projectId, { ...page, limit: page.limit + 1 });
    return boundedPage(rows, page.limit, toTemplateView, (last) => encodeCursor([last.lastSeen.toISOString(), last.id]));
  }

  /**
   * Labels a template of the project: its failures categorized from now on are stored with the label's category and
   * evidence `label`. Those already stored keep `unknown` (docs/unknown-lane.md says why).
   */
  async labelTemplate(projectId: string, id: string, label: { category: Category; subtype?: Subtype | null }): Promise<TemplateView> {
    const checked = checkedLabel(label);
    const template = await this.lane.findTemplate(projectId, id);
    if (!template) throw notFound('unknown template', id);
    if (!template.label && (await this.lane.countLabels(projectId)) >= MAX_LABELS_PER_PROJECT) {
      throw new ApiError(409, 'too_many_labels', `A project holds at most ${MAX_LABELS_PER_PROJECT} template labels`);
    }
    await this.lane.upsertLabel(projectId, id, checked);
    return toTemplateView((await this.lane.findTemplate(projectId, id))!);
  }

  /** The project's labelled templates as categorizer fixture lines (JSONL), each ending in a newline. */
  async fixtureLines(projectId: string): Promise<string[]> {
    const templates = await this.lane.listLabelledTemplates(projectId, MAX_LABELS_PER_PROJECT);
    return templates.map((template) => `${JSON.stringify(toFixture(projectId, template))}\n`);
  }
}

/** The label, or 400 invalid_label naming /subtype when the subtype does not fit the category. */
function checkedLabel({ category, subtype = null }: { category: Category; subtype?: Subtype | null }): TemplateLabel {
  const needsSubtype = CATEGORIES_WITH_SUBTYPES.has(category);
  let problem: string | null = null;
  if (needsSubtype && subtype === null) problem = `${category} needs a subtype`;
  else if (!needsSubtype && subtype !== null) problem = `${category} has no subtypes`;
  else if (subtype !== null && categoryOfSubtype(subtype) !== category)
    problem = `${subtype} is a subtype of ${categoryOfSubtype(subtype)}`;
  if (problem) throw new ApiError(400, 'invalid_label', `Invalid label: ${problem}`, { details: [{ path: '/subtype', message: problem }] });
  return { category, subtype };
}

function toTemplateView(row: UnknownTemplateRow): TemplateView {
  return {
    id: row.id,
    template: row.template,
    count: Number(row.count),
    firstSeen: row.firstSeen.toISOString(),
    lastSeen: row.lastSeen.toISOString(),
    sampleEventIds: row.sampleEventIds,
    example: { tool: row.exampleTool, errorType: row.exampleErrorType, message: row.exampleMessage },
    label: row.label && { category: row.label.category, subtype: row.label.subtype, labelledAt: row.label.labelledAt.toISOString() },
  };
}

/** A labelled template as a line of test/fixtures/categorizer/parts/*.jsonl: its example, expected as labelled. */
function toFixture(projectId: string, row: UnknownTemplateRow) {
  return {
    id: `label-${row.id}`,
    source: `label:${projectId}:${row.template}`,
    family: `label:${projectId}`,
    tool: row.exampleTool,
    arguments: null,
    error: { type: row.exampleErrorType, message: row.exampleMessage },
    expected: { category: row.label!.category, subtype: row.label!.subtype },
  };
}
