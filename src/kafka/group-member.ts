// Staying in a consumer group until the node stops. kafkajs restarts a consumer after most
// errors, but not after a non-retriable one (a mock broker refusing a SyncGroup while another
// member joins is one): that member is gone for good, and its node out of the group. So each
// member is made anew and started again after such a crash, a second after the last one left.
import type { Consumer } from 'kafkajs';

export interface GroupMembership {
  /** A new member, with its event handlers attached. */
  newConsumer(): Consumer;
  /** Connects, subscribes and runs the member (resolves once it runs). */
  start(consumer: Consumer): Promise<void>;
  /** Whether the node is stopping: no new member is made, and the waiting ends. */
  stopping(): boolean;
  /** At every crash of a member, restarted by kafkajs or not. */
  crashed?(): void;
  /** A member left after a crash kafkajs does not restart from: another joins. */
  rejoining(error: unknown): void;
  /** A member could not start (the broker unreachable, say): another tries. */
  failed(error: unknown): void;
}

export async function stayInGroup(membership: GroupMembership): Promise<void> {
  const stopped = untilStopping(membership.stopping);
  while (!membership.stopping()) {
    const consumer = membership.newConsumer();
    const left = new Promise<unknown>((resolve) =>
      consumer.on(consumer.events.CRASH, ({ payload }) => {
        membership.crashed?.();
        if (!payload.restart) resolve(payload.error);
      }),
    );
    try {
      await membership.start(consumer);
      const error = await Promise.race([left, stopped]);
      if (membership.stopping()) return;
      membership.rejoining(error);
    } catch (error) {
      if (membership.stopping()) return;
      membership.failed(error);
    }
    await consumer.disconnect().catch(() => undefined);
    if (!membership.stopping()) await sleep(1000);
  }
}

async function untilStopping(stopping: () => boolean): Promise<void> {
  while (!stopping()) await sleep(200);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
