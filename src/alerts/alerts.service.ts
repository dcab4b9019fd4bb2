import { Inject, Injectable } from '@nestjs/common';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { ApiError, notFound } from '../infra/http/api-error';
import { isUuid } from '../infra/http/storable-values';
import { AlertDeliveryService, AttemptResult } from './alert-delivery.service';
import { AlertDeliveryRepository, StoredDelivery } from './alert-delivery.repository';
import { AlertDestinationRepository, StoredDestination } from './alert-destination.repository';
import { AlertIncidentRepository, StoredIncident } from './alert-incident.repository';
import { AlertRuleRepository, StoredRule } from './alert-rule.repository';
import {
  DestinationInput,
  DestinationPatch,
  invalidDestination,
  MAX_DESTINATIONS_PER_PROJECT,
  MAX_RULES_PER_PROJECT,
  readRulePatch,
  RuleInput,
} from './alerts.schemas';
import { RefusedDestinationError, resolveDestination } from './outbound-request';
import { generateSigningSecret } from './webhook-signature';

const SECRET_PREFIX_CHARS = 12;

export type DestinationView = Omit<StoredDestination, 'secret' | 'projectId'> & {
  status: 'active' | 'failing' | 'paused';
  secretPrefix: string;
};

/** The alert routes' work: rules and destinations of the caller's project, its incidents and delivery log. */
@Injectable()
export class AlertsService {
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly rules: AlertRuleRepository,
    private readonly destinations: AlertDestinationRepository,
    private readonly incidents: AlertIncidentRepository,
    private readonly deliveries: AlertDeliveryRepository,
    private readonly delivery: AlertDeliveryService,
  ) {}

  async createRule(projectId: string, input: RuleInput): Promise<StoredRule> {
    if ((await this.rules.countRules(projectId)) >= MAX_RULES_PER_PROJECT) {
      throw new ApiError(409, 'too_many_rules', `A project has at most ${MAX_RULES_PER_PROJECT} alert rules; delete one first`);
    }
    return this.rules.insertRule(projectId, input);
  }

  listRules(projectId: string): Promise<StoredRule[]> {
    return this.rules.findRules(projectId);
  }

  async getRule(projectId: string, id: string): Promise<StoredRule> {
    const rule = isUuid(id) ? await this.rules.findRule(projectId, id) : null;
    if (!rule) throw notFound('alert rule', id);
    return rule;
  }

  /** A disabled rule's open incidents are resolved without a notification: nobody watches them any more. */
  async updateRule(projectId: string, id: string, body: unknown, now: Date): Promise<StoredRule> {
    const rule = await this.getRule(projectId, id);
    const updated = await this.rules.updateRule(projectId, rule.id, readRulePatch(body, rule.kind));
    if (!updated) throw notFound('alert rule', id);
    if (!updated.isEnabled) await this.incidents.resolveRuleIncidents(projectId, updated.id, now);
    return updated;
  }

  async deleteRule(projectId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.rules.deleteRule(projectId, id))) throw notFound('alert rule', id);
  }

  /** Creates a destination after checking where its URL leads; answers the signing secret, this once. */
  async createDestination(projectId: string, input: DestinationInput): Promise<DestinationView & { secret: string }> {
    if ((await this.destinations.countDestinations(projectId)) >= MAX_DESTINATIONS_PER_PROJECT) {
      throw new ApiError(409, 'too_many_destinations', `A project has at most ${MAX_DESTINATIONS_PER_PROJECT} alert destinations`);
    }
    await this.refuseForbiddenUrl(input.url);
    const stored = await this.destinations.insertDestination(projectId, { ...input, secret: generateSigningSecret() });
    return { ...toDestinationView(stored), secret: stored.secret };
  }

  async listDestinations(projectId: string): Promise<DestinationView[]> {
    return (await this.destinations.findDestinations(projectId)).map(toDestinationView);
  }

  async getDestination(projectId: string, id: string): Promise<DestinationView> {
    return toDestinationView(await this.findDestination(projectId, id));
  }

  /** Renames, re-points or resumes (isPaused: false) a destination; resuming forgets its failures. */
  async updateDestination(projectId: string, id: string, patch: DestinationPatch, now: Date): Promise<DestinationView> {
    const destination = await this.findDestination(projectId, id);
    if (patch.url !== undefined) await this.refuseForbiddenUrl(patch.url);
    const pause =
      patch.isPaused === undefined
        ? {}
        : patch.isPaused
          ? { pausedAt: destination.pausedAt ?? now }
          : { pausedAt: null, failingSince: null };
    const updated = await this.destinations.updateDestination(projectId, destination.id, { name: patch.name, url: patch.url, ...pause });
    if (!updated) throw notFound('alert destination', id);
    return toDestinationView(updated);
  }

  async deleteDestination(projectId: string, id: string): Promise<void> {
    if (!isUuid(id) || !(await this.destinations.deleteDestination(projectId, id))) throw notFound('alert destination', id);
  }

  async sendTestNotification(projectId: string, id: string, now: Date): Promise<AttemptResult & { delivered: boolean }> {
    const result = await this.delivery.sendTest(await this.findDestination(projectId, id), now);
    return { delivered: result.outcome === 'delivered', ...result };
  }

  listIncidents(projectId: string, filter: { status?: 'open' | 'resolved'; limit: number }): Promise<StoredIncident[]> {
    return this.incidents.findIncidents(projectId, filter);
  }

  listDeliveries(
    projectId: string,
    filter: { destinationId?: string; incidentId?: string; after?: { at: Date; id: string }; limit: number },
  ): Promise<StoredDelivery[]> {
    return this.deliveries.findDeliveries(projectId, filter);
  }

  private async findDestination(projectId: string, id: string): Promise<StoredDestination> {
    const destination = isUuid(id) ? await this.destinations.findDestination(projectId, id) : null;
    if (!destination) throw notFound('alert destination', id);
    return destination;
  }

  /** 400 for a URL whose host is (or resolves to) a forbidden address; the delivery checks again before each send. */
  private async refuseForbiddenUrl(url: string): Promise<void> {
    try {
      await resolveDestination(url, this.config.alertAllowPrivateDestinations);
    } catch (error) {
      if (error instanceof RefusedDestinationError) throw invalidDestination([{ path: '/url', message: error.message }]);
      throw new ApiError(400, 'invalid_destination', `Could not resolve the destination's host: ${(error as Error).message}`, {
        details: [{ path: '/url', message: 'could not be resolved' }],
      });
    }
  }
}

function toDestinationView(destination: StoredDestination): DestinationView {
  const { secret, projectId: _projectId, ...rest } = destination;
  const status = destination.pausedAt ? 'paused' : destination.failingSince ? 'failing' : 'active';
  return { ...rest, status, secretPrefix: secret.slice(0, SECRET_PREFIX_CHARS) };
}
