// What judging a tool's quality answers (tool-quality.ts): the findings, the score, the report per tool.

import type { JsonObject } from '../registry.types';

export const QUALITY_FINDING_KINDS = [
  'missing_description',
  'parameter_without_description',
  'unbounded_number',
  'closed_set_without_enum',
  'date_without_format',
  'id_without_pattern',
  'email_without_format',
  'url_without_format',
  'array_without_items',
  'array_without_max_items',
  'required_not_declared',
  'name_differs_from_description',
  'near_duplicate_tool',
  'description_contradicts_schema',
  'batchable_single_value',
  'no_usage_example',
] as const;
export type QualityFindingKind = (typeof QUALITY_FINDING_KINDS)[number];

export type QualitySeverity = 'high' | 'medium' | 'low';

export interface QualityFinding {
  kind: QualityFindingKind;
  /** JSON pointer into the tool definition ({name, description, parameters}). */
  path: string;
  severity: QualitySeverity;
  /** What is wrong, in one sentence. */
  message: string;
  /** What to change. */
  fix: string;
  /** Prose the description can carry as is (a warning), when the fix needs no schema change. */
  addition?: string;
}

export interface ToolQuality {
  /** 0-100: 100 minus the findings' weights (SEVERITY_WEIGHT), never below 0. */
  score: number;
  /** Most expected impact first: severity, then the order of the rubric. */
  findings: QualityFinding[];
}

export interface JudgedTool {
  name: string;
  description: string;
  parameters: JsonObject;
}

/** One tool's report, as GET /v1/tools and the registration answers carry it. */
export interface ToolQualityReport extends ToolQuality {
  tool: string;
}
