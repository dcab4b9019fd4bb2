import { Inject, Injectable } from '@nestjs/common';
import { Logger } from 'pino';
import { AppConfig } from '../config/config';
import { APP_CONFIG } from '../config/config.module';
import { AdvisoryLocks } from '../infra/locks/advisory-lock';
import { ROOT_LOGGER } from '../infra/logging/logging.module';
import { diffIncidents, findFirings, Signals } from './alert-conditions';
import { AlertIncidentRepository, StoredIncident } from './alert-incident.repository';
import { AlertNotifier } from './alert-notifier.service';
import { AlertRuleRepository, StoredRule } from './alert-rule.repository';
import { AlertSignalRepository } from './alert-signal.repository';

const HOUR_MS = 3_600_000;
/** A measured effect stays alarming this long after the nightly measured it (it is measured once a day). */
const MIN_EFFECT_WINDOW_MS = 24 * HOUR_MS;
export const ALERT_EVALUATION_LOCK = 'toolcoach:alerts:evaluation';

export interface EvaluationCounts {
  projects: number;
  rules: number;
  opened: number;
  resolved: number;
  notifications: number;
}

/**
 * Evaluates every enabled rule once per window (ALERT_EVALUATION_INTERVAL_MS): opens an incident per subject that
 * meets its rule's condition, resolves those that no longer do, and queues the notifications. Every worker runs the
 * schedule; the window's row and an advisory lock make exactly one of them evaluate it.
 */
@Injectable()
export class AlertEvaluationService {
  private readonly logger: Logger;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    @Inject(ROOT_LOGGER) rootLogger: Logger,
    private readonly locks: AdvisoryLocks,
    private readonly rules: AlertRuleRepository,
    private readonly incidents: AlertIncidentRepository,
    private readonly signals: AlertSignalRepository,
    private readonly notifier: AlertNotifier,
  ) {
    this.logger = rootLogger.child({ context: 'AlertEvaluationService' });
  }

  /** The window `now` falls in; null (nothing done) when another worker has or is evaluating it. */
  async evaluateWindow(now: Date): Promise<EvaluationCounts | null> {
    const windowStart = new Date(Math.floor(now.getTime() / this.config.alertEvaluationIntervalMs) * this.config.alertEvaluationIntervalMs);
    const lock = await this.locks.tryAcquire(ALERT_EVALUATION_LOCK);
    if (!lock) return null;
    try {
      if (!(await this.incidents.claimWindow(windowStart))) return null;
      const counts: EvaluationCounts = { projects: 0, rules: 0, opened: 0, resolved: 0, notifications: 0 };
      for (const projectId of await this.rules.findProjectsWithEnabledRules()) {
        counts.projects += 1;
        try {
          await this.evaluateProject(projectId, now, counts);
        } catch (error) {
          // one project's failure must not silence the others' alerts
          this.logger.error({ projectId, err: (error as Error).message }, 'alert evaluation of a project failed');
        }
      }
      await this.incidents.finishWindow(windowStart, { ...counts });
      return counts;
    } finally {
      await lock.release();
    }
  }

  private async evaluateProject(projectId: string, now: Date, counts: EvaluationCounts) {
    for (const rule of await this.rules.findEnabledRules(projectId)) {
      counts.rules += 1;
      const firings = findFirings(rule, await this.readSignals(projectId, rule, now));
      const { toOpen, toResolve, stillFiring } = diffIncidents(await this.incidents.findOpenIncidents(projectId, rule.id), firings);
      for (const firing of toOpen) {
        const isNotified = !(await this.incidents.wasNotifiedSince(
          projectId,
          rule.id,
          firing.subject,
          new Date(now.getTime() - rule.cooldownMinutes * 60_000),
        ));
        const incident = await this.incidents.openIncident(projectId, rule.id, firing, isNotified, now);
        counts.opened += 1;
        if (isNotified) counts.notifications += await this.notifyIncident(projectId, incident, 'opened');
      }
      const open = await this.incidents.findOpenIncidents(projectId, rule.id);
      for (const firing of stillFiring) {
        const incident = open.find((each) => each.subject === firing.subject);
        if (incident) await this.incidents.refreshIncident(projectId, incident.id, firing);
      }
      for (const stale of toResolve) {
        const incident = await this.incidents.resolveIncident(projectId, stale.id, now);
        counts.resolved += 1;
        if (incident.isNotified) counts.notifications += await this.notifyIncident(projectId, incident, 'resolved');
      }
    }
  }

  /** Only what the rule's kind reads; every read is bounded (MAX_SUBJECTS_PER_RULE). */
  private async readSignals(projectId: string, rule: StoredRule, now: Date): Promise<Signals> {
    const signals: Signals = { tools: [], newGroups: [], regressedGroups: [], worseWarnings: [], unregisteredTools: [] };
    // the hourly buckets that overlap the last windowHours, the current (partial) hour included
    const from = new Date(Math.floor((now.getTime() - rule.windowHours * HOUR_MS) / HOUR_MS) * HOUR_MS);
    const to = new Date(now.getTime() + 1);
    switch (rule.kind) {
      case 'success_rate_below':
      case 'success_rate_drop':
        signals.tools = await this.signals.sumToolWindows(projectId, from, to, rule.tools);
        break;
      case 'new_error_group':
        signals.newGroups = await this.signals.findNewErrorGroups(
          projectId,
          new Date(now.getTime() - rule.windowHours * HOUR_MS),
          to,
          rule.tools,
        );
        break;
      case 'regressed_error_group':
        signals.regressedGroups = await this.signals.findRegressedErrorGroups(projectId, rule.tools);
        break;
      case 'warning_measured_worse':
        signals.worseWarnings = await this.signals.findWorseWarnings(
          projectId,
          new Date(now.getTime() - Math.max(rule.windowHours * HOUR_MS, MIN_EFFECT_WINDOW_MS)),
          rule.tools,
        );
        break;
      case 'unregistered_tool':
        signals.unregisteredTools = await this.signals.findUnregisteredTools(projectId, from, to, rule.tools);
        break;
    }
    return signals;
  }

  private notifyIncident(projectId: string, incident: StoredIncident, event: 'opened' | 'resolved'): Promise<number> {
    return this.notifier.notify(projectId, `incident:${incident.id}:${event}`, event, incident.id, {
      type: event === 'opened' ? 'incident.opened' : 'incident.resolved',
      projectId,
      summary: event === 'opened' ? incident.summary : `Resolved: ${incident.summary}`,
      incident: toNotifiedIncident(incident),
    });
  }
}

export function toNotifiedIncident(incident: StoredIncident): Record<string, unknown> {
  return {
    id: incident.id,
    ruleId: incident.ruleId,
    ruleName: incident.ruleName,
    ruleKind: incident.ruleKind,
    subject: incident.subject,
    tool: incident.tool,
    status: incident.status,
    details: incident.details,
    openedAt: incident.openedAt.toISOString(),
    resolvedAt: incident.resolvedAt?.toISOString() ?? null,
  };
}
