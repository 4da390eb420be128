// Lambda's entry for the processor function (exports `handler`): the composition root, no logic.
// Clients and adapters are built once per container and handed to the middy chain with EVENT_HANDLERS.

import { LAMBDA_DEFAULTS } from '../../config/resources';
import { runtimeFromEnv } from '../../config/runtime';
import { METRICS_NAMESPACE, SERVICE } from '../../config/telemetry';
import { createProcessClients } from '../adapters/clients';
import { DynamoInboxTransitions } from '../adapters/dynamo-inbox';
import { DynamoResourceVersions } from '../adapters/dynamo-resource-versions';
import { jsonTelemetry } from '../adapters/json-telemetry';
import { S3PayloadReader } from '../adapters/s3-payloads';
import { SqsForwardQueues } from '../adapters/sqs-forward-queues';
import { SqsMessageControl } from '../adapters/sqs-message-control';
import { systemClock } from '../core/ports';
import { EVENT_HANDLERS } from '../events';
import { processLambda } from './middy-chain';

const runtime = runtimeFromEnv();
const clients = createProcessClients();

export const handler = processLambda({
  config: runtime.config,
  inbox: new DynamoInboxTransitions(clients.dynamodb, runtime.tableName),
  payloads: new S3PayloadReader(clients.s3, runtime.bucketName),
  messages: new SqsMessageControl(clients.sqs, runtime.queueUrl),
  versions: new DynamoResourceVersions(clients.dynamodb, runtime.tableName),
  handlers: EVENT_HANDLERS,
  forwards: new SqsForwardQueues(clients.sqs, runtime.destinations),
  clock: systemClock,
  defaultLeaseMs: LAMBDA_DEFAULTS.processorTimeoutSeconds * 1000,
  ...jsonTelemetry({ service: SERVICE.process, namespace: METRICS_NAMESPACE }),
});
