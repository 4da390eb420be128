// The grants no recorded call uses, per variant and actor, and the grants given twice: pinned, so a new
// unused grant (or a new duplicate) fails the test and is looked at. `{stack}` stands for the stack's name.
// When a policy is tightened, remove its line here.
const ARN = 'arn:aws';
const AT = 'us-east-1:123456789012';
const BUCKET = `${ARN}:s3:::{stack}-inboxpayloadbuckete53f40a3`;
const QUEUE = `${ARN}:sqs:${AT}:{stack}-Inbox-queue`;

/** Only read when an object is missing (S3 then answers 404 instead of 403): no path here misses one. */
const LIST_BUCKET = `s3:ListBucket ${BUCKET}`;
/** CDK's grantConsumeMessages includes GetQueueUrl; the code is given queue URLs and never asks. */
const getQueueUrl = (queue: string) => `sqs:GetQueueUrl ${queue}`;

const VERIFY: string[] = [];
const PROCESSOR = [LIST_BUCKET, `s3:PutObject ${BUCKET}/payloads/*`, getQueueUrl(QUEUE)];

/**
 * The forwarder's: its destination queues' GetQueueUrl, SendMessage to them (a waiting delivery sent
 * anew, when its destination is enabled again), ChangeMessageVisibility where no forward was retried,
 * the payloads PutObject where no EventBridge destination stores a body too large for its entry, and
 * the intake's Lambda calls where no destination was gone.
 */
function forwarder(
  queues: string[],
  options: { notRetried: string[]; intakeUsed: boolean; storesBodies?: boolean },
): string[] {
  const queue = (id: string) => `${QUEUE}-to-${id}`;
  return [
    ...(options.intakeUsed
      ? []
      : [
          'lambda:ListEventSourceMappings *',
          `lambda:UpdateEventSourceMapping ${ARN}:lambda:${AT}:event-source-mapping:*`,
        ]),
    LIST_BUCKET,
    ...(options.storesBodies ? [] : [`s3:PutObject ${BUCKET}/payloads/*`]),
    ...options.notRetried.map((id) => `sqs:ChangeMessageVisibility ${queue(id)}`),
    ...queues.map((id) => getQueueUrl(queue(id))),
    ...queues.map((id) => `sqs:SendMessage ${queue(id)}`),
  ].sort();
}

/** The operator's, from the documented policy (docs/iam.md): what the recorded commands did not need on this stack. */
const CLI = [LIST_BUCKET];
const CLI_WITH_DESTINATIONS = [
  ...CLI,
  // Peeking an empty destination DLQ leaves nothing to make visible again.
  `sqs:ChangeMessageVisibility ${QUEUE}-to-*-dlq`,
];
const CLI_WITHOUT_HTTP = [
  ...CLI_WITH_DESTINATIONS,
  `secretsmanager:GetSecretValue ${ARN}:secretsmanager:${AT}:secret:InboxDestinationsSecret*`,
  `secretsmanager:PutSecretValue ${ARN}:secretsmanager:${AT}:secret:InboxDestinationsSecret*`,
  'lambda:ListEventSourceMappings *',
  `lambda:UpdateEventSourceMapping ${ARN}:lambda:${AT}:event-source-mapping:*`,
].sort();

const WITHOUT_DESTINATIONS = { verify: VERIFY, processor: PROCESSOR, cli: CLI };
/** The front doors whose stacks the operator's commands do not run on. */
const LAMBDAS_ONLY = { verify: VERIFY, processor: PROCESSOR };

export const EXPECTED_UNUSED: Record<string, Record<string, string[]>> = {
  rest: WITHOUT_DESTINATIONS,
  http: LAMBDAS_ONLY,
  'function-url': LAMBDAS_ONLY,
  'rest+http': {
    verify: VERIFY,
    processor: PROCESSOR,
    forwarder: forwarder(['gone', 'orders', 'partner'], { notRetried: ['partner'], intakeUsed: true }),
    cli: CLI_WITH_DESTINATIONS,
  },
  'rest+eventbridge': {
    verify: VERIFY,
    processor: PROCESSOR,
    forwarder: forwarder(['audit', 'events'], {
      notRetried: ['audit', 'events'],
      intakeUsed: false,
      storesBodies: true,
    }),
    cli: CLI_WITHOUT_HTTP,
  },
  'rest+sqs': {
    verify: VERIFY,
    processor: PROCESSOR,
    forwarder: [
      ...forwarder(['crm'], { notRetried: ['crm'], intakeUsed: false }),
      // Read only when the target queue refuses an envelope as too large: no delivery here is.
      'sqs:GetQueueAttributes arn:aws:sqs:eu-west-1:210987654321:crm-inbound',
    ].sort(),
    cli: CLI_WITHOUT_HTTP,
  },
};

const PROCESSOR_DUPLICATE: string[] = [];
const DUPLICATES = { verify: [], processor: PROCESSOR_DUPLICATE, cli: [] };

export const EXPECTED_DUPLICATES: Record<string, Record<string, string[]>> = {
  rest: DUPLICATES,
  http: { verify: [], processor: PROCESSOR_DUPLICATE },
  'function-url': { verify: [], processor: PROCESSOR_DUPLICATE },
  'rest+http': { ...DUPLICATES, forwarder: [] },
  'rest+eventbridge': { ...DUPLICATES, forwarder: [] },
  'rest+sqs': { ...DUPLICATES, forwarder: [] },
};
