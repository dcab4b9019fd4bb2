import { Injectable } from '@nestjs/common';
import { ResultFailurePolicyRepository } from './result-failure-policy.repository';
import { ResultFailurePolicy } from './result-failures.schemas';

/** A project's result-failure policy; the worker reads it for every group that holds a result failure. */
@Injectable()
export class ResultFailuresService {
  constructor(private readonly policies: ResultFailurePolicyRepository) {}

  getPolicy(projectId: string): Promise<ResultFailurePolicy> {
    return this.policies.findPolicy(projectId);
  }

  /** Changes the fields `patch` has; an empty patch changes nothing. Events already stored keep their status. */
  setPolicy(projectId: string, patch: Partial<ResultFailurePolicy>): Promise<ResultFailurePolicy> {
    if (patch.disabledRules === undefined) return this.policies.findPolicy(projectId);
    return this.policies.updatePolicy(projectId, patch);
  }
}
