// Lambda's entry for the forwarder function (exports `handler`): the composition root, no logic.
// Clients and adapters are built once per container and handed to the middy chain.
import { runtimeFromEnv } from '../../config/runtime';
import { METRICS_NAMESPACE, SERVICE } from '../../config/telemetry';
import { createForwardClients } from '../adapters/clients';
import { DynamoDestinationStates } from '../adapters/dynamo-destination-states';
import { DynamoForwardLog } from '../adapters/dynamo-forward-log';
import { jsonTelemetry } from '../adapters/json-telemetry';
import { LambdaDestinationIntake } from '../adapters/lambda-destination-intake';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { messageControls, SqsForwardQueues } from '../adapters/sqs-forward-queues';
import { systemClock } from '../core/ports';
import { forwardLambda } from './middy-chain';
import { destinationSenders } from './senders';

const runtime = runtimeFromEnv();
const clients = createForwardClients();
const made = runtime.destinations;

export const handler = forwardLambda({
  config: runtime.config,
  senders: destinationSenders({ clients, runtime, region: process.env.AWS_REGION }),
  history: new DynamoForwardLog(clients.dynamodb, runtime.tableName),
  states: new DynamoDestinationStates(clients.dynamodb, runtime.tableName),
  intake: new LambdaDestinationIntake(
    clients.lambda,
    process.env.AWS_LAMBDA_FUNCTION_NAME ?? 'webhook-inbox-forwarder',
    Object.fromEntries(Object.entries(made).map(([id, resources]) => [id, resources.queueArn])),
  ),
  payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
  messagesFor: messageControls(clients.sqs, made),
  queues: new SqsForwardQueues(clients.sqs, made),
  clock: systemClock,
  ...jsonTelemetry({ service: SERVICE.forward, namespace: METRICS_NAMESPACE }),
});
