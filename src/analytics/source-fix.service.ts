import { Injectable } from '@nestjs/common';
import { ApiError, notFound } from '../infra/http/api-error';
import { isUuid } from '../infra/http/storable-values';
import { RegistryService } from '../registry/registry.service';
import type { WarningRecord } from '../registry/registry.types';
import { RecommendationRepository, StoredRecommendation } from './recommendation.repository';
import { FindingFix, FixFinding, isFixCarried, RegisteredDefinition, SourceFix, sourceFixOf } from './source-fix';
import { Snippet, SnippetFormat, toolSnippet } from './tool-snippet';

/** A tool's active warnings exported at once, oldest first: the answer stays bounded whatever a project accumulates. */
export const MAX_EXPORTED_WARNINGS = 100;

export type ExportedFinding = Omit<FindingFix, 'evidence'>;

export interface SourceFixExport extends Omit<SourceFix, 'findings'> {
  findings: ExportedFinding[];
  snippet: Snippet;
}

/**
 * Fixes in the tool's own source (docs/review-mode.md): the export of what one recommendation, or a tool's active
 * warnings, would change in the tool's definition; and the nightly's step that retires what a new registration carries.
 */
@Injectable()
export class SourceFixService {
  constructor(
    private readonly recommendations: RecommendationRepository,
    private readonly registry: RegistryService,
  ) {}

  async exportRecommendation(projectId: string, id: string, format: SnippetFormat): Promise<SourceFixExport> {
    const recommendation = isUuid(id) ? await this.recommendations.findRecommendation(projectId, id) : null;
    if (!recommendation) throw notFound('recommendation', id);
    const definition = await this.findDefinition(projectId, recommendation.tool);
    if (!definition) {
      throw new ApiError(
        409,
        'tool_not_registered',
        'The tool of this recommendation is not registered (or archived): no definition to fix',
      );
    }
    return exported(sourceFixOf(definition, [findingOfRecommendation(recommendation)]), format);
  }

  async exportToolWarnings(projectId: string, name: string, format: SnippetFormat): Promise<SourceFixExport> {
    const definition = await this.findDefinition(projectId, name);
    if (!definition) throw notFound('tool', name);
    const warnings = (await this.registry.listActiveWarnings(projectId, name)).slice(0, MAX_EXPORTED_WARNINGS);
    const ids = warnings.flatMap((warning) => {
      const id = warning.evidence.recommendationId;
      return typeof id === 'string' && isUuid(id) ? [id] : [];
    });
    const byId = new Map((await this.recommendations.findRecommendationsByIds(projectId, ids)).map((r) => [r.id, r]));
    return exported(
      sourceFixOf(
        definition,
        warnings.map((warning) => findingOfWarning(warning, byId)),
      ),
      format,
    );
  }

  /**
   * The nightly's step after measuring effects: a proposed or applied recommendation whose fix the tool's registered
   * definition now carries (a re-registration with the exported schema or description) is dismissed, its warning
   * retired, and its measured effect kept with `fixedUpstream`: the version that carries it. Answers how many.
   */
  async retireFixedUpstream(projectId: string, recommendationIds: readonly string[], at: Date): Promise<number> {
    // read again: tonight's measurement may have retired some of them already
    const [listed, applied] = await Promise.all([
      this.recommendations.findRecommendationsByIds(projectId, recommendationIds),
      this.recommendations.findAppliedRecommendations(projectId),
    ]);
    const open = [
      ...new Map([...listed, ...applied].filter((r) => r.status === 'proposed' || r.status === 'applied').map((r) => [r.id, r])).values(),
    ];
    if (open.length === 0) return 0;
    const definitions = await this.registry.findRegisteredDefinitions(projectId, [...new Set(open.map((r) => r.tool))]);
    let retired = 0;
    for (const recommendation of open) {
      const definition = definitions.get(recommendation.tool);
      if (!definition || !isFixCarried(findingOfRecommendation(recommendation), definition)) continue;
      if (recommendation.status === 'applied' && recommendation.warningId) {
        await this.registry.retireWarning(
          projectId,
          recommendation.warningId,
          `the tool's definition carries this fix (version ${definition.version})`,
        );
      }
      // an effect never measured (proposed, or applied too recently) says so: the response's effect always has a verdict
      const effect = {
        verdict: 'not_enough_data',
        ...(recommendation.effect ?? {}),
        fixedUpstream: { version: definition.version, at: at.toISOString() },
      };
      await this.recommendations.markDismissed(projectId, recommendation.id, at, effect);
      retired += 1;
    }
    return retired;
  }

  private async findDefinition(projectId: string, name: string): Promise<RegisteredDefinition | null> {
    return (await this.registry.findRegisteredDefinitions(projectId, [name])).get(name) ?? null;
  }
}

function findingOfRecommendation(recommendation: StoredRecommendation): FixFinding {
  return {
    recommendationId: recommendation.id,
    warningId: recommendation.warningId,
    kind: recommendation.kind,
    text: recommendation.text,
    evidence: recommendation.evidence,
  };
}

/** A warning the nightly applied reads its recommendation's evidence (the names a rename needs); a manual one its own. */
function findingOfWarning(warning: WarningRecord, recommendations: ReadonlyMap<string, StoredRecommendation>): FixFinding {
  const recommendation = recommendations.get(String(warning.evidence.recommendationId));
  return {
    recommendationId: recommendation?.id ?? null,
    warningId: warning.id,
    kind: warning.kind,
    text: warning.text,
    evidence: { ...(recommendation?.evidence ?? {}), ...(warning.evidence as Record<string, unknown>) },
  };
}

function exported(fix: SourceFix, format: SnippetFormat): SourceFixExport {
  const findings = fix.findings.map(({ evidence: _evidence, ...finding }) => finding);
  const snippet = toolSnippet(format, { name: fix.tool, description: fix.description.rewritten, parameters: fix.parameters });
  return { ...fix, findings, snippet };
}
