// One rule for names that come from events or user schemas, shared with the guard core.
export { ownValue } from '@toolcoach/core';
