import { Injectable } from '@nestjs/common';
import { GuardPolicy } from './guard.schemas';
import { GuardPolicyRepository } from './guard-policy.repository';
import { GuardSection, guardSectionOf, MAX_GUARD_RENAMES } from './guard-section';
import { LearnedRename, LearnedRenameRepository } from '../validate/learned-rename.repository';
import { RegistryChangesChannel } from '../serving/registry-changes.channel';
import type { DescriptionView } from '../registry.types';

/** The change published when a project's guard policy changes: every served answer of the project drops with it. */
export const GUARD_POLICY_CHANGE = '\u0000guard-policy';
/** Renames are learned from this window of error groups, as validate learns them. */
const LEARNING_WINDOW_DAYS = 30;

/** The guard policy, and the guard section served with each tool (its schema, learned renames and limits, the policy). */
@Injectable()
export class GuardService {
  constructor(
    private readonly policies: GuardPolicyRepository,
    private readonly learned: LearnedRenameRepository,
    private readonly changes: RegistryChangesChannel,
  ) {}

  getPolicy(projectId: string): Promise<GuardPolicy> {
    return this.policies.findPolicy(projectId);
  }

  /** Changes the fields `patch` has; an empty patch changes nothing, so nothing served drops. */
  async setPolicy(projectId: string, patch: Partial<GuardPolicy>): Promise<GuardPolicy> {
    if (patch.mode === undefined) return this.policies.findPolicy(projectId);
    const policy = await this.policies.updatePolicy(projectId, patch);
    await this.changes.publish({ projectId, tool: GUARD_POLICY_CHANGE });
    return policy;
  }

  async guardOf(projectId: string, view: DescriptionView, nowMs: number): Promise<GuardSection> {
    const [policy, renames] = await Promise.all([
      this.policies.findPolicy(projectId),
      this.learned.findLearnedRenames(projectId, view.name, learningSince(nowMs)),
    ]);
    return guardSectionOf(view, renames, policy.mode);
  }

  /** The guard of every listed tool, from one policy read and one renames query for the whole project. */
  async guardsOf(projectId: string, views: readonly DescriptionView[], nowMs: number): Promise<Map<string, GuardSection>> {
    const [policy, renames] = await Promise.all([
      this.policies.findPolicy(projectId),
      this.learned.findProjectLearnedRenames(projectId, learningSince(nowMs), MAX_GUARD_RENAMES),
    ]);
    const byTool = new Map<string, LearnedRename[]>();
    for (const rename of renames) byTool.set(rename.tool, [...(byTool.get(rename.tool) ?? []), rename]);
    return new Map(views.map((view) => [view.name, guardSectionOf(view, byTool.get(view.name) ?? [], policy.mode)]));
  }
}

function learningSince(nowMs: number): Date {
  return new Date(nowMs - LEARNING_WINDOW_DAYS * 86_400_000);
}
