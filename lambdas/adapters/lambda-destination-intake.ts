// A destination's intake on AWS: the forwarder's event source mapping for the destination's queue. A
// disabled mapping receives nothing, so the deliveries wait on the queue (none of their receives is
// spent) until `destinations enable` turns it back on.
import {
  type LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import type { DestinationIntake } from '../core/destinations/ports';
import { DependencyError } from '../core/errors';
import { callDependency, isAwsError } from './dependency-call';

export class LambdaDestinationIntake implements DestinationIntake {
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly settleAttempts: number;

  constructor(
    private readonly client: LambdaClient,
    /** The forwarder's function name or ARN. */
    private readonly functionName: string,
    /** Destination id to its queue's ARN. */
    private readonly queueArns: Readonly<Record<string, string>>,
    options: { sleep?: (ms: number) => Promise<void>; settleAttempts?: number } = {},
  ) {
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.settleAttempts = options.settleAttempts ?? SETTLE_ATTEMPTS;
  }

  pause(destinationId: string): Promise<void> {
    return this.setEnabled(destinationId, false);
  }

  resume(destinationId: string): Promise<void> {
    return this.setEnabled(destinationId, true);
  }

  /**
   * Nothing is remembered between calls: the CLI's `destinations enable` changes the mapping behind this
   * container's back. The mapping's own state says whether an update is needed.
   */
  private async setEnabled(destinationId: string, enabled: boolean): Promise<void> {
    const queueArn = Object.hasOwn(this.queueArns, destinationId) ? this.queueArns[destinationId] : undefined;
    if (queueArn === undefined) throw new Error(`no queue for destination ${destinationId}`);
    // A mapping on its way to the other state (a pause racing an enable) refuses an update until it gets
    // there: wait for it, a few seconds at most, rather than leave it where the race put it.
    for (let attempt = 0; ; attempt++) {
      const pending = await this.update(queueArn, enabled);
      if (!pending) return;
      if (attempt >= this.settleAttempts) {
        throw new DependencyError('lambda', 'UpdateEventSourceMapping');
      }
      await this.sleep(SETTLE_WAIT_MS);
    }
  }

  /** Updates every mapping not already (going) where wanted; true if one was still on its way back. */
  private async update(queueArn: string, enabled: boolean): Promise<boolean> {
    const { EventSourceMappings: mappings = [] } = await callDependency(
      'lambda',
      'ListEventSourceMappings',
      () =>
        this.client.send(
          new ListEventSourceMappingsCommand({ FunctionName: this.functionName, EventSourceArn: queueArn }),
        ),
    );
    let pending = false;
    for (const mapping of mappings) {
      if (mapping.UUID === undefined) continue;
      const state = mapping.State ?? '';
      if (
        enabled ? state === 'Enabled' || state === 'Enabling' : state === 'Disabled' || state === 'Disabling'
      ) {
        continue;
      }
      if (state === 'Enabling' || state === 'Disabling' || state === 'Updating' || state === 'Creating') {
        pending = true;
        continue;
      }
      const updated = await this.client
        .send(new UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: enabled }))
        .then(() => true)
        .catch((error: unknown) => {
          if (isAwsError(error, 'ResourceInUseException')) return false;
          throw new DependencyError('lambda', 'UpdateEventSourceMapping', { cause: error });
        });
      if (!updated) pending = true;
    }
    return pending;
  }
}

/** How long a wait for a mapping's transition is, and how many there may be. */
const SETTLE_WAIT_MS = 1_000;
const SETTLE_ATTEMPTS = 10;

/** Local mode's intake: its poller reads the destination's state itself (local/forwarding.ts). */
export const pollerIntake: DestinationIntake = {
  pause: async () => undefined,
  resume: async () => undefined,
};
