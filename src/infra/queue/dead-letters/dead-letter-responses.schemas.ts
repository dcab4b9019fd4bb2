// What the dead-letter routes answer; the OpenAPI document shows these and a test checks real answers against them.
import { DATE_TIME, pageOf } from '../../http/openapi/response.schemas';
import { MAX_LISTED_EVENT_IDS } from './dead-letter.entry';

const COUNT = { type: 'integer', minimum: 0 } as const;

const DEAD_LETTER = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'originalJobId', 'events', 'eventIds', 'failedReason', 'attemptsMade', 'failedAt'],
  properties: {
    id: { type: 'string', description: 'pass to POST /v1/admin/dead-letters/{id}/replay' },
    originalJobId: { type: 'string' },
    events: { ...COUNT, description: 'how many events the entry holds' },
    eventIds: {
      type: 'array',
      maxItems: MAX_LISTED_EVENT_IDS,
      items: { type: 'string' },
      description: `the first ${MAX_LISTED_EVENT_IDS}`,
    },
    failedReason: { type: 'string', maxLength: 2000 },
    attemptsMade: COUNT,
    failedAt: DATE_TIME,
  },
} as const;

export const DEAD_LETTERS_RESPONSE = pageOf(DEAD_LETTER, {
  total: { ...COUNT, description: 'entries this project has now' },
  dropped: { ...COUNT, description: 'oldest entries removed because a per-project cap was reached' },
  expired: { ...COUNT, description: 'entries removed after the retention time' },
  limits: {
    type: 'object',
    additionalProperties: false,
    required: ['maxEntries', 'maxBytes', 'retentionDays'],
    properties: { maxEntries: COUNT, maxBytes: COUNT, retentionDays: { type: 'number' } },
  },
});

export const REPLAY_RESPONSE = {
  type: 'object',
  additionalProperties: false,
  required: ['replayedAs'],
  properties: { replayedAs: { type: 'string', description: 'id of the events-queue job the batch became' } },
} as const;
