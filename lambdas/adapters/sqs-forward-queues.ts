// The processor's fan-out: a SendMessage to each destination's own queue.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { ForwardQueues } from '../core/destinations/ports';
import type { MessageControl, QueueMessage } from '../core/ports';
import { SqsMessageControl } from './sqs-message-control';
import { sendMessage } from './sqs-queue';

/** Each destination's queue, by destination id: what the stack or local mode made (DestinationResources). */
export type DestinationQueues = Readonly<Record<string, { readonly queueUrl: string }>>;

function queueUrlOf(queues: DestinationQueues, destinationId: string): string {
  const queueUrl = Object.hasOwn(queues, destinationId) ? queues[destinationId]?.queueUrl : undefined;
  if (queueUrl === undefined) throw new Error(`no queue for destination ${destinationId}`);
  return queueUrl;
}

export class SqsForwardQueues implements ForwardQueues {
  constructor(
    private readonly client: SQSClient,
    private readonly queues: DestinationQueues,
  ) {}

  async send(destinationId: string, message: QueueMessage): Promise<{ messageId: string }> {
    return { messageId: await sendMessage(this.client, queueUrlOf(this.queues, destinationId), message) };
  }
}

/** The forwarder's hold on a message, per destination queue: one control each, made on first use. */
export function messageControls(
  client: SQSClient,
  queues: DestinationQueues,
): (id: string) => MessageControl {
  const controls = new Map<string, MessageControl>();
  return (id) => {
    let control = controls.get(id);
    if (!control) {
      control = new SqsMessageControl(client, queueUrlOf(queues, id));
      controls.set(id, control);
    }
    return control;
  };
}
