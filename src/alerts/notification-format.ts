// The request bodies a notification becomes, per destination kind. Pure: what to say in, bytes out.

export const DESTINATION_KINDS = ['webhook', 'slack'] as const;
export type DestinationKind = (typeof DESTINATION_KINDS)[number];

export const NOTIFICATION_TYPES = ['incident.opened', 'incident.resolved', 'rollout.promoted', 'rollout.rolled_back', 'test'] as const;
export type NotificationType = (typeof NOTIFICATION_TYPES)[number];

/** The documented webhook body (docs/alerts.md), without its id, which is the delivery's. */
export interface Notification {
  type: NotificationType;
  projectId: string;
  /** One line for people; untrusted names in it are already quoted (alert-conditions.quoted). */
  summary: string;
  incident?: Record<string, unknown> | null;
  rollout?: Record<string, unknown> | null;
}

const SLACK_PREFIX: Record<NotificationType, string> = {
  'incident.opened': ':rotating_light: toolcoach alert',
  'incident.resolved': ':white_check_mark: toolcoach resolved',
  'rollout.promoted': ':arrow_up: toolcoach canary promoted',
  'rollout.rolled_back': ':leftwards_arrow_with_hook: toolcoach canary rolled back',
  test: ':wave: toolcoach test notification',
};

const MAX_SLACK_TEXT_CHARS = 3000;

/** The JSON body sent to a destination of `kind`. */
export function renderNotification(kind: DestinationKind, notificationId: string, notification: Notification): string {
  if (kind === 'slack') {
    const text = `${SLACK_PREFIX[notification.type]}: ${escapeSlack(notification.summary)}`;
    return JSON.stringify({ text: text.slice(0, MAX_SLACK_TEXT_CHARS) });
  }
  return JSON.stringify({
    id: notificationId,
    ...notification,
    incident: notification.incident ?? null,
    rollout: notification.rollout ?? null,
  });
}

/** Slack's mrkdwn control characters; anything else reads as typed. */
function escapeSlack(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
