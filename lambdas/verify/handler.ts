// The verify Lambda's entry: the composition root. It builds clients and adapters once per container,
// at import, and hands them to the factory. No logic lives here.
import { runtimeFromEnv } from '../../config/runtime';
import { METRICS_NAMESPACE, SERVICE } from '../../config/telemetry';
import { createAwsClients } from '../adapters/clients';
import { DynamoInbox } from '../adapters/dynamo-inbox';
import { jsonTelemetry } from '../adapters/json-telemetry';
import { S3PayloadStore } from '../adapters/s3-payloads';
import { SecretsManagerSource } from '../adapters/secrets';
import { SqsDeliveryQueue } from '../adapters/sqs-queue';
import { systemClock } from '../core/ports';
import { createVerifyHandler } from './create-handler';

const runtime = runtimeFromEnv();
const clients = createAwsClients();

export const handler = createVerifyHandler({
  config: runtime.config,
  inbox: new DynamoInbox(clients.dynamodb, runtime.tableName),
  queue: new SqsDeliveryQueue(clients.sqs, runtime.queueUrl),
  payloads: new S3PayloadStore(clients.s3, runtime.bucketName),
  secrets: new SecretsManagerSource(clients.secrets, runtime.secretArns, {
    cacheSeconds: runtime.config.secretCacheSeconds,
  }),
  clock: systemClock,
  ...jsonTelemetry({ service: SERVICE.verify, namespace: METRICS_NAMESPACE }),
});
