import { ALERT_DELIVERY_SLOTS } from '../infra/queue/queue.workers';

/** Deliveries one worker process has in flight at once (its worker's concurrency): each waits at most the 5 s delivery timeout on a socket. */
export const DELIVERY_SLOTS = ALERT_DELIVERY_SLOTS;
/** Of those, what one project may hold: a project whose webhooks hang leaves the others six slots of every eight. */
export const DELIVERY_SLOTS_PER_PROJECT = 2;
/** And one destination: a receiver never gets a second delivery while it has not answered the first. */
export const DELIVERY_SLOTS_PER_DESTINATION = 1;

/**
 * The delivery slots of one worker process, shared between projects: a delivery may start only while its project and
 * its destination are under their share. Counted in the process, so a worker that dies frees its slots with it.
 */
export class DeliverySlots {
  private readonly byProject = new Map<string, number>();
  private readonly byDestination = new Map<string, number>();

  /** Takes a slot for the delivery when its project and destination have their share free; false when not. */
  tryTake(projectId: string, destinationId: string): boolean {
    const project = this.byProject.get(projectId) ?? 0;
    const destination = this.byDestination.get(destinationId) ?? 0;
    if (project >= DELIVERY_SLOTS_PER_PROJECT || destination >= DELIVERY_SLOTS_PER_DESTINATION) return false;
    this.byProject.set(projectId, project + 1);
    this.byDestination.set(destinationId, destination + 1);
    return true;
  }

  release(projectId: string, destinationId: string): void {
    decrement(this.byProject, projectId);
    decrement(this.byDestination, destinationId);
  }
}

/** Counts that fall to 0 are deleted, so the maps hold only what is in flight. */
function decrement(counts: Map<string, number>, key: string): void {
  const count = (counts.get(key) ?? 0) - 1;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}
