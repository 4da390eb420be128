// The AWS SDK clients, built once per process (Lambda cold start, local mode, CLI, a test file) and passed
// to the adapters. Nothing else constructs a client, so every caller can point the same code at AWS or at
// the emulators.
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { EventBridgeClient } from '@aws-sdk/client-eventbridge';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';

export interface AwsClients {
  dynamodb: DynamoDBClient;
  sqs: SQSClient;
  s3: S3Client;
  secrets: SecretsManagerClient;
}

/** The verify Lambda's clients: it writes to S3 through S3PayloadWriter, so it never loads S3Client. */
export type VerifyClients = Omit<AwsClients, 's3'>;

/**
 * The processor Lambda's clients: it never reads a secret, and a client it imports is one its cold start
 * loads (Secrets Manager's is 13 KiB of bundle).
 */
export type ProcessClients = Omit<AwsClients, 'secrets'>;

export interface AwsClientOptions {
  /** Endpoint overrides, e.g. dynalite's and fauxqs's loopback URLs. A client without one talks to AWS. */
  dynamodb?: string;
  sqs?: string;
  s3?: string;
  secrets?: string;
  /** Defaults to the SDK's own resolution (AWS_REGION in a Lambda), or us-east-1 for an emulator. */
  region?: string;
  /**
   * Defaults to the SDK's provider chain, or, with an endpoint override, to fixed stand-in keys that only a
   * test double accepts: local mode's emulators refuse them and need their launch's (local/emulators.ts).
   */
  credentials?: DynamoDBClientConfig['credentials'];
  /**
   * SDK attempts per call. On AWS the SDK default (3, standard mode) absorbs throttles and blips well
   * inside the verify Lambda's 8 s timeout. Against an emulator the default is 2: there is nothing to
   * throttle, so a failure is a real fault we want surfaced at once as a 503 rather than hidden behind
   * backoff; the one retry only covers a kept-alive socket the emulator closed just as it was reused.
   * Faults injected by test/support/faults.ts sit before the retry step, so they are never retried.
   */
  maxAttempts?: number;
}

/** A test double ignores credentials but the SDK still signs, so it needs some. */
const EMULATOR_CREDENTIALS = { accessKeyId: 'webhook-inbox-local', secretAccessKey: 'webhook-inbox-local' };
const EMULATOR_REGION = 'us-east-1';
const EMULATOR_MAX_ATTEMPTS = 2;

interface CommonConfig {
  region?: string;
  endpoint?: string;
  credentials?: DynamoDBClientConfig['credentials'];
  maxAttempts?: number;
}

function commonConfig(options: AwsClientOptions, endpoint: string | undefined): CommonConfig {
  if (endpoint === undefined) {
    return {
      ...(options.region === undefined ? {} : { region: options.region }),
      ...(options.credentials === undefined ? {} : { credentials: options.credentials }),
      ...(options.maxAttempts === undefined ? {} : { maxAttempts: options.maxAttempts }),
    };
  }
  return {
    endpoint,
    region: options.region ?? EMULATOR_REGION,
    credentials: options.credentials ?? EMULATOR_CREDENTIALS,
    maxAttempts: options.maxAttempts ?? EMULATOR_MAX_ATTEMPTS,
  };
}

function dynamodbClient(options: AwsClientOptions): DynamoDBClient {
  return new DynamoDBClient(commonConfig(options, options.dynamodb));
}

function sqsClient(options: AwsClientOptions): SQSClient {
  return new SQSClient({
    ...commonConfig(options, options.sqs),
    // By default the SDK sends each call to the host in its QueueUrl. fauxqs's URLs name
    // sqs.<region>.localhost, which does not resolve everywhere; the configured endpoint always does.
    ...(options.sqs === undefined ? {} : { useQueueUrlAsEndpoint: false }),
  });
}

/**
 * An SQS client of its own, e.g. `{ region }` for a target queue in another region (the forwarder's and
 * the CLI's); an endpoint override applies whatever the region.
 */
export function createSqsClient(options: AwsClientOptions = {}): SQSClient {
  return sqsClient(options);
}

function s3Client(options: AwsClientOptions): S3Client {
  return new S3Client({
    ...commonConfig(options, options.s3),
    // Virtual-hosted addressing would put the bucket in the emulator's host name.
    ...(options.s3 === undefined ? {} : { forcePathStyle: true }),
  });
}

function secretsClient(options: AwsClientOptions): SecretsManagerClient {
  return new SecretsManagerClient(commonConfig(options, options.secrets));
}

export function createVerifyClients(options: AwsClientOptions = {}): VerifyClients {
  return { dynamodb: dynamodbClient(options), sqs: sqsClient(options), secrets: secretsClient(options) };
}

export function createProcessClients(options: AwsClientOptions = {}): ProcessClients {
  return { dynamodb: dynamodbClient(options), sqs: sqsClient(options), s3: s3Client(options) };
}

export function createAwsClients(options: AwsClientOptions = {}): AwsClients {
  return { ...createProcessClients(options), secrets: secretsClient(options) };
}

/** The CLI's, for a stack's outputs (`--stack NAME`). Apart from AwsClients: it is needed before the region is known. */
export function createCloudFormationClient(options: AwsClientOptions = {}): CloudFormationClient {
  return new CloudFormationClient(commonConfig(options, undefined));
}

/**
 * The forwarder Lambda's clients: EventBridge for its bus destinations, Lambda for its own event source
 * mappings (a disabled destination's intake), and the rest as the processor's plus Secrets Manager.
 */
export interface ForwardClients extends AwsClients {
  eventbridge: EventBridgeClient;
  lambda: LambdaClient;
}

export function createForwardClients(options: AwsClientOptions = {}): ForwardClients {
  return {
    ...createAwsClients(options),
    eventbridge: createEventBridgeClient(options),
    lambda: new LambdaClient(commonConfig(options, undefined)),
  };
}

/** The CLI's, for `destinations enable` on a stack: the forwarder's event source mappings. */
export function createLambdaClient(options: AwsClientOptions = {}): LambdaClient {
  return new LambdaClient(commonConfig(options, undefined));
}

/** The CLI's, for `destinations test` of an EventBridge destination on a stack. */
export function createEventBridgeClient(options: AwsClientOptions = {}): EventBridgeClient {
  return new EventBridgeClient(commonConfig(options, undefined));
}

/** The console's, on a stack: whether a previous secret is still used (the PreviousSecretUsed metric). */
export function createCloudWatchClient(options: AwsClientOptions = {}): CloudWatchClient {
  return new CloudWatchClient(commonConfig(options, undefined));
}
