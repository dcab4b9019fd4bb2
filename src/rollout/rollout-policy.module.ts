import { Module } from '@nestjs/common';
import { RolloutPolicyRepository } from './rollout-policy.repository';

/** The rollout policy alone, so the registry can read it without depending on the rollout decisions. */
@Module({ providers: [RolloutPolicyRepository], exports: [RolloutPolicyRepository] })
export class RolloutPolicyModule {}
