// Errors of the pipeline core. Adapters turn SDK failures into these; handlers map them to answers.

export class WebhookInboxError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'WebhookInboxError';
  }
}

/**
 * A dependency (DynamoDB, SQS, S3, Secrets Manager; CloudFormation for the CLI) failed. Retryable: the
 * verify handler answers 503.
 */
export class DependencyError extends WebhookInboxError {
  constructor(
    readonly dependency:
      | 'dynamodb'
      | 'sqs'
      | 's3'
      | 'secrets'
      | 'cloudformation'
      | 'eventbridge'
      | 'lambda'
      | 'cloudwatch',
    readonly operation: string,
    options?: ErrorOptions,
  ) {
    super(`${dependency} ${operation} failed`, options);
    this.name = 'DependencyError';
  }
}

/** The CLI's `--stack NAME` names no stack in the region. `cause` is AWS's refusal, when it sent one. */
export class StackNotFoundError extends WebhookInboxError {
  constructor(
    readonly stackName: string,
    options?: ErrorOptions,
  ) {
    super(`stack ${stackName} not found`, options);
    this.name = 'StackNotFoundError';
  }
}

/** A payload reference that is not `s3://<our bucket>/<key>`. Permanent: no retry can make it readable. */
export class InvalidPayloadRefError extends WebhookInboxError {
  constructor(readonly ref: string) {
    super(`not a payload reference of this inbox: ${ref}`);
    this.name = 'InvalidPayloadRefError';
  }
}

/**
 * A payload reference of this inbox whose object is gone (deleted by hand, or outlived). Permanent: the
 * bytes cannot come back, and retrying would only use up the message's receives.
 */
export class PayloadMissingError extends WebhookInboxError {
  constructor(
    readonly ref: string,
    options?: ErrorOptions,
  ) {
    super(`payload object not found: ${ref}`, options);
    this.name = 'PayloadMissingError';
  }
}

/**
 * The body does not match the handler's schema. Permanent. `detail` names the failing fields and zod's
 * issue codes, never a value (schema-issues.ts), so it can go to the record and the log.
 */
export class SchemaMismatchError extends WebhookInboxError {
  readonly code = 'schema_mismatch';
  constructor(readonly detail: string) {
    super(`schema_mismatch: ${detail}`);
    this.name = 'SchemaMismatchError';
  }
}
