// A destination's intake on AWS: the forwarder's event source mapping for the destination's queue. A
// disabled mapping receives nothing, so the deliveries wait on the queue (none of their receives is
// spent) until `destinations enable` turns it back on.
import {
  type LambdaClient,
  ListEventSourceMappingsCommand,
  UpdateEventSourceMappingCommand,
} from '@aws-sdk/client-lambda';
import type { DestinationIntake } from '../core/destinations/ports';
import { callDependency } from './dependency-call';

export class LambdaDestinationIntake implements DestinationIntake {
  constructor(
    private readonly client: LambdaClient,
    /** The forwarder's function name or ARN. */
    private readonly functionName: string,
    /** Destination id to its queue's ARN. */
    private readonly queueArns: Readonly<Record<string, string>>,
  ) {}

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
    const { EventSourceMappings: mappings = [] } = await callDependency(
      'lambda',
      'ListEventSourceMappings',
      () =>
        this.client.send(
          new ListEventSourceMappingsCommand({ FunctionName: this.functionName, EventSourceArn: queueArn }),
        ),
    );
    for (const mapping of mappings) {
      if (mapping.UUID === undefined) continue;
      const state = mapping.State ?? '';
      if (
        enabled ? state === 'Enabled' || state === 'Enabling' : state === 'Disabled' || state === 'Disabling'
      ) {
        continue;
      }
      await callDependency('lambda', 'UpdateEventSourceMapping', () =>
        this.client.send(new UpdateEventSourceMappingCommand({ UUID: mapping.UUID, Enabled: enabled })),
      );
    }
  }
}

/** Local mode's intake: its poller reads the destination's state itself (local/forwarding.ts). */
export const pollerIntake: DestinationIntake = {
  pause: async () => undefined,
  resume: async () => undefined,
};
