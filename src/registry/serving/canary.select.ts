import { Prisma } from '../../generated/prisma/client';

/** The columns of a canary every reader shows (the registry's serving, the dashboard's version history). */
export const CANARY_SELECT = {
  id: true,
  tool: true,
  warningId: true,
  warningIds: true,
  design: true,
  looks: true,
  maxLooks: true,
  state: true,
  previousVersion: true,
  canaryVersion: true,
  share: true,
  minCalls: true,
  status: true,
  decision: true,
  startedAt: true,
  decidedAt: true,
} satisfies Prisma.CanarySelect;
