// Lambda's entry for the verify function (exports `handler`): the composition root, no logic.
// It builds clients and adapters once per container, at import, and hands them to the middy chain.
import { inboxRuntimeFromEnv } from '../../config/runtime';
import { METRICS_NAMESPACE, SERVICE } from '../../config/telemetry';
import { createVerifyClients } from '../adapters/clients';
import { DynamoClaims } from '../adapters/dynamo-claims';
import { jsonTelemetry } from '../adapters/json-telemetry';
import { S3PayloadWriter } from '../adapters/s3-payload-writer';
import { SecretsManagerSource } from '../adapters/secrets';
import { SqsDeliveryQueue } from '../adapters/sqs-queue';
import { systemClock } from '../core/ports';
import { verifyLambda } from './middy-chain';

const runtime = inboxRuntimeFromEnv();
const clients = createVerifyClients();

export const handler = verifyLambda({
  config: runtime.config,
  inbox: new DynamoClaims(clients.dynamodb, runtime.tableName),
  queue: new SqsDeliveryQueue(clients.sqs, runtime.queueUrl),
  // Signs with the SQS client's resolved credentials, region and hash: the same chain, resolved once.
  payloads: new S3PayloadWriter({
    bucket: runtime.bucketName,
    bucketUrl: runtime.bucketUrl,
    signing: clients.sqs.config,
  }),
  secrets: new SecretsManagerSource(clients.secrets, runtime.secretArns, {
    cacheSeconds: runtime.config.secretCacheSeconds,
  }),
  clock: systemClock,
  ...jsonTelemetry({ service: SERVICE.verify, namespace: METRICS_NAMESPACE }),
});
