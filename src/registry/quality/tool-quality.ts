/**
 * Judges a tool's description and argument schema before its first mistake: the smells that predictably make models
 * call a tool wrong (see docs/tool-quality.md for the rubric). Pure: a definition in, findings and a score out.
 *
 * Every finding names the JSON path it is about (into the definition: /description, /parameters/properties/n, ...),
 * a severity and a concrete fix. A finding whose fix is pure prose the description can carry carries that prose as
 * `addition`: such additions may be applied as warnings (they change no contract); schema changes are for the tool's
 * owner and are only proposed.
 */
import { judgeBatching, judgeContradictions, judgeDescription, judgeRequired } from './description-quality';
import { judgeExample } from './example-call';
import { MAX_TEXT_CHARS, propertiesOf } from './judged-properties';
import { judgeDuplicates } from './near-duplicate-tools';
import { judgeProperty } from './property-quality';
import type { JudgedTool, QualityFindingKind, QualityFinding, QualitySeverity, ToolQuality, ToolQualityReport } from './tool-quality.types';
import { QUALITY_FINDING_KINDS } from './tool-quality.types';
import { wordsOf } from './word-forms';

/** The rubric: each finding costs this many points of 100. */
export const SEVERITY_WEIGHT: Record<QualitySeverity, number> = { high: 20, medium: 10, low: 4 };

/** Every tool judged against the others of its project, worst score first (then by name). */
export function judgeProjectTools(tools: readonly JudgedTool[]): ToolQualityReport[] {
  return tools
    .map((tool) => ({ tool: tool.name, ...judgeTool(tool, tools) }))
    .sort((a, b) => a.score - b.score || (a.tool < b.tool ? -1 : a.tool > b.tool ? 1 : 0));
}

export function judgeTool(tool: JudgedTool, siblings: readonly Pick<JudgedTool, 'name' | 'description'>[] = []): ToolQuality {
  const description = tool.description.slice(0, MAX_TEXT_CHARS);
  const words = wordsOf(description);
  const properties = propertiesOf(tool.parameters);
  const contradictions = judgeContradictions(properties, words);
  const findings: QualityFinding[] = [
    ...judgeDescription(tool.name, words),
    ...properties.flatMap((property) => judgeProperty(property, words)),
    ...judgeRequired(tool.parameters, properties, description),
    ...contradictions,
    // a property the description already contradicts has its one-per-call fix there
    ...judgeBatching(
      tool,
      properties.filter((p) => !contradictions.some((c) => c.path === p.path)),
      words,
    ),
    ...judgeExample(properties, description),
    ...judgeDuplicates(tool, siblings),
  ];
  findings.sort((a, b) => SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || kindRank(a.kind) - kindRank(b.kind));
  const cost = findings.reduce((sum, finding) => sum + SEVERITY_WEIGHT[finding.severity], 0);
  return { score: Math.max(0, 100 - cost), findings };
}

const SEVERITY_RANK: Record<QualitySeverity, number> = { high: 0, medium: 1, low: 2 };
const kindRank = (kind: QualityFindingKind) => QUALITY_FINDING_KINDS.indexOf(kind);
