import { Injectable } from '@nestjs/common';
import { RecommendationsService } from '../analytics/recommendations.service';
import { RolloutService } from '../rollout/rollout.service';
import type { McpTool } from './mcp-tool';
import { CANARY_CHANGE_OUTPUT, ID_INPUT, RECOMMENDATION_CHANGE_OUTPUT } from './mcp-tools.schemas';
import { canaryView, recommendationView } from './mcp-views';

const WRITE_KEY_NOTE = ' Needs an API key with scope write; a read key gets a tool error and nothing changes.';

/** The tools that change something, each the service method behind the REST route of the same action. */
@Injectable()
export class McpWriteTools {
  constructor(
    private readonly recommendations: RecommendationsService,
    private readonly rollout: RolloutService,
  ) {}

  list(): McpTool<{ id: string }>[] {
    return [
      {
        name: 'apply_recommendation',
        access: 'write',
        description:
          "Applies a proposed recommendation as a warning: the tool's description gets a new version with the warning folded " +
          'in, served to agents at once (or as a canary when the rollout policy says so). Answers the recommendation with ' +
          'appliedVersion. Recommendations that change the schema are proposals only and are refused.' +
          WRITE_KEY_NOTE,
        inputSchema: ID_INPUT('recommendation'),
        outputSchema: RECOMMENDATION_CHANGE_OUTPUT,
        run: async (caller, { id }) => ({ recommendation: recommendationView(await this.recommendations.apply(caller.projectId, id)) }),
      },
      {
        name: 'approve_recommendation',
        access: 'write',
        description:
          'Approves a recommendation that waits for review (the project is in review mode: docs/review-mode.md): it then goes ' +
          'the normal way at once, as a canary when the rollout policy says so, else applied. Approving one twice answers the ' +
          'same; one that does not wait for an approval is refused (not_awaiting_approval) with what it waits for.' +
          WRITE_KEY_NOTE,
        inputSchema: ID_INPUT('recommendation'),
        outputSchema: RECOMMENDATION_CHANGE_OUTPUT,
        run: async (caller, { id }) => ({ recommendation: recommendationView(await this.recommendations.approve(caller.projectId, id)) }),
      },
      {
        name: 'dismiss_recommendation',
        access: 'write',
        description:
          'Dismisses a recommendation; when it was applied, its warning is retired (a new version without it). A dismissed ' +
          'warning is never added again by the nightly job for the same evidence.' +
          WRITE_KEY_NOTE,
        inputSchema: ID_INPUT('recommendation'),
        outputSchema: RECOMMENDATION_CHANGE_OUTPUT,
        run: async (caller, { id }) => ({ recommendation: recommendationView(await this.recommendations.dismiss(caller.projectId, id)) }),
      },
      {
        name: 'promote_canary',
        access: 'write',
        description:
          'Promotes a running canary by hand: its version is served to every caller from now on. A canary that already ' +
          'ended is refused (canary_not_running).' +
          WRITE_KEY_NOTE,
        inputSchema: ID_INPUT('canary'),
        outputSchema: CANARY_CHANGE_OUTPUT,
        run: async (caller, { id }) => ({ canary: canaryView(await this.rollout.endCanary(caller.projectId, id, 'promote')) }),
      },
      {
        name: 'stop_canary',
        access: 'write',
        description:
          'Stops a running canary by hand: rolled back, its warning dismissed, the previous description served to every ' +
          'caller.' +
          WRITE_KEY_NOTE,
        inputSchema: ID_INPUT('canary'),
        outputSchema: CANARY_CHANGE_OUTPUT,
        run: async (caller, { id }) => ({ canary: canaryView(await this.rollout.endCanary(caller.projectId, id, 'roll_back')) }),
      },
    ];
  }
}
