// The forwarder Lambda's entry: the composition root. Clients and adapters are built once per container.
import { runtimeFromEnv } from '../../config/runtime';
import { METRICS_NAMESPACE, SERVICE } from '../../config/telemetry';
import { createForwardClients } from '../adapters/clients';
import { DynamoDestinationStates } from '../adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../adapters/dynamo-forward-log';
import { jsonTelemetry } from '../adapters/json-telemetry';
import { LambdaDestinationIntake } from '../adapters/lambda-destination-intake';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { SqsForwardQueues } from '../adapters/sqs-forward-queues';
import { SqsMessageControl } from '../adapters/sqs-message-control';
import { systemClock } from '../core/ports';
import { forwardLambda } from './lambda';
import { destinationSenders } from './senders';

const runtime = runtimeFromEnv();
const clients = createForwardClients();
const made = runtime.destinations;
const pick = (field: 'queueUrl' | 'queueArn') =>
  Object.fromEntries(Object.entries(made).map(([id, resources]) => [id, resources[field]]));
const queueUrls = pick('queueUrl');
const messages = new Map(
  Object.entries(queueUrls).map(([id, url]) => [id, new SqsMessageControl(clients.sqs, url)]),
);

export const handler = forwardLambda({
  config: runtime.config,
  senders: destinationSenders({ clients, runtime }),
  history: new DynamoForwardLog(clients.dynamodb, runtime.tableName),
  states: new DynamoDestinationStates(clients.dynamodb, runtime.tableName),
  intake: new LambdaDestinationIntake(
    clients.lambda,
    process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'webhook-inbox-forwarder',
    pick('queueArn'),
  ),
  payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
  messagesFor: (id) => {
    const control = messages.get(id);
    if (!control) throw new Error(`no queue for destination ${id}`);
    return control;
  },
  queues: new SqsForwardQueues(clients.sqs, queueUrls),
  clock: systemClock,
  ...jsonTelemetry({ service: SERVICE.forward, namespace: METRICS_NAMESPACE }),
});
