// A deployed stack as AWS's APIs describe it, on one local HTTP server: each SDK client of the doctor is
// pointed at it with the endpoint variables the SDK reads (AWS_ENDPOINT_URL_<SERVICE>), so the command's own
// wiring (cli/commands/doctor/run.ts) runs against wire formats as AWS sends them: CloudFormation's query
// XML, CloudWatch's, DynamoDB's, SQS's and Secrets Manager's JSON, Lambda's REST JSON, S3's REST XML. It
// holds a healthy stack; a test changes what one call answers through `overrides`.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const ACCOUNT = '123456789012';
export const REGION = 'eu-west-1';
export const STACK = 'WebhookInbox';
export const TOPIC = `arn:aws:sns:${REGION}:${ACCOUNT}:${STACK}-AlarmTopic-1ABC`;
export const ALARM = `${STACK}-DeadLettersAlarm-2DEF`;
export const VERIFY_FUNCTION = `${STACK}-InboxVerifyFunction-3GHI`;
const QUEUE_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:inbox-queue`;
const DLQ_ARN = `arn:aws:sqs:${REGION}:${ACCOUNT}:inbox-dlq`;

/** One call's answer: an HTTP status and a body (an object is sent as JSON). */
export type Answer = { status: number; body: string | object; type?: string };

export interface FakeAws {
  url: string;
  /** Every call, as `<service>.<operation>` (or `<METHOD> <path>`), in order. */
  calls: string[];
  /** Operation (`AmazonSQS.ListMessageMoveTasks`, ...) to the answer it gives instead of the healthy one. */
  overrides: Map<string, Answer>;
  /** The environment that points every client of the CLI at this server. */
  env(): Record<string, string>;
  close(): Promise<void>;
}

const xml = (body: string): Answer => ({ status: 200, body, type: 'text/xml' });
const json = (body: object): Answer => ({ status: 200, body });
const CFN = 'http://cloudformation.amazonaws.com/doc/2010-05-15/';

function stackOutputs(url: string, providers: readonly string[]): Record<string, string> {
  const pascal = (id: string) =>
    id
      .split('-')
      .map((p) => p.charAt(0).toUpperCase() + p.slice(1))
      .join('');
  return {
    ApiUrl: `${url}/prod`,
    QueueUrl: `${url}/${ACCOUNT}/inbox-queue`,
    QueueArn: QUEUE_ARN,
    DlqUrl: `${url}/${ACCOUNT}/inbox-dlq`,
    DlqArn: DLQ_ARN,
    TableName: 'inbox',
    PayloadBucketName: 'inbox-payloads',
    ...Object.fromEntries(
      providers.map((id) => [
        `SecretArn${pascal(id)}`,
        `arn:aws:secretsmanager:${REGION}:${ACCOUNT}:secret:webhook-inbox/${id}-AbCdEf`,
      ]),
    ),
  };
}

const RESOURCES = [
  ['InboxVerifyFunction1A2B3C4D', VERIFY_FUNCTION, 'AWS::Lambda::Function'],
  ['InboxApi5E6F7A8B', 'a1b2c3d4e5', 'AWS::ApiGateway::RestApi'],
  ['InboxMonitoringDeadLettersAlarm9C0D1E2F', ALARM, 'AWS::CloudWatch::Alarm'],
];

export async function startFakeAws(providers: readonly string[]): Promise<FakeAws> {
  const calls: string[] = [];
  const overrides = new Map<string, Answer>();
  const alarm = {
    state: 'OK',
    reason: 'Threshold Crossed: 1 datapoint [0.0] was not greater than the threshold (0.0).',
  };
  const history: object[] = [];
  let url = '';

  const answer = (
    operation: string,
    input: Record<string, unknown>,
    method: string,
    path: string,
  ): Answer => {
    const override = overrides.get(operation);
    if (override) return override;
    switch (operation) {
      case 'cloudformation.DescribeStacks': {
        const members = Object.entries(stackOutputs(url, providers))
          .map(([k, v]) => `<member><OutputKey>${k}</OutputKey><OutputValue>${v}</OutputValue></member>`)
          .join('');
        return xml(
          `<DescribeStacksResponse xmlns="${CFN}"><DescribeStacksResult><Stacks><member><StackName>${STACK}</StackName><StackStatus>CREATE_COMPLETE</StackStatus><CreationTime>2026-12-01T00:00:00Z</CreationTime><Outputs>${members}</Outputs></member></Stacks></DescribeStacksResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></DescribeStacksResponse>`,
        );
      }
      case 'cloudformation.ListStackResources': {
        const members = RESOURCES.map(
          ([logical, physical, type]) =>
            `<member><LogicalResourceId>${logical}</LogicalResourceId><PhysicalResourceId>${physical}</PhysicalResourceId><ResourceType>${type}</ResourceType><ResourceStatus>CREATE_COMPLETE</ResourceStatus><LastUpdatedTimestamp>2026-12-01T00:00:00Z</LastUpdatedTimestamp></member>`,
        ).join('');
        return xml(
          `<ListStackResourcesResponse xmlns="${CFN}"><ListStackResourcesResult><StackResourceSummaries>${members}</StackResourceSummaries></ListStackResourcesResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></ListStackResourcesResponse>`,
        );
      }
      case 'DynamoDB_20120810.GetItem':
        return json({});
      // The listing's probe: one Query on an empty partition of the listing index.
      case 'DynamoDB_20120810.Query':
        return json({ Items: [], Count: 0, ScannedCount: 0 });
      case 'AmazonSQS.GetQueueAttributes': {
        const isDlq = String(input.QueueUrl).endsWith('inbox-dlq');
        return json({
          Attributes: {
            ApproximateNumberOfMessages: '0',
            ApproximateNumberOfMessagesNotVisible: '0',
            ApproximateNumberOfMessagesDelayed: '0',
            ...(isDlq
              ? {
                  RedriveAllowPolicy: JSON.stringify({
                    redrivePermission: 'byQueue',
                    sourceQueueArns: [QUEUE_ARN],
                  }),
                }
              : { RedrivePolicy: JSON.stringify({ deadLetterTargetArn: DLQ_ARN, maxReceiveCount: 12 }) }),
          },
        });
      }
      case 'AmazonSQS.ListMessageMoveTasks':
        return json({ Results: [] });
      case 'secretsmanager.GetSecretValue':
        return input.VersionStage === 'AWSCURRENT'
          ? json({
              ARN: input.SecretId,
              Name: 'x',
              SecretString: 'whsec_doctorWiringTestSecret',
              VersionStages: ['AWSCURRENT'],
            })
          : {
              status: 400,
              body: {
                __type: 'ResourceNotFoundException',
                message:
                  "Secrets Manager can't find the specified secret value for staging label: AWSPREVIOUS",
              },
            };
      case 'GraniteServiceVersion20100801.DescribeAlarms':
        return json({
          MetricAlarms: (input.AlarmNames as string[]).includes(ALARM)
            ? [
                {
                  AlarmName: ALARM,
                  StateValue: alarm.state,
                  StateReason: alarm.reason,
                  ActionsEnabled: true,
                  AlarmActions: [TOPIC],
                  OKActions: [TOPIC],
                },
              ]
            : [],
        });
      case 'GraniteServiceVersion20100801.SetAlarmState': {
        const changed = alarm.state !== input.StateValue;
        alarm.state = String(input.StateValue);
        alarm.reason = String(input.StateReason);
        if (changed && (alarm.state === 'ALARM' || alarm.state === 'OK')) {
          history.unshift({
            AlarmName: ALARM,
            AlarmType: 'MetricAlarm',
            Timestamp: Date.now() / 1000,
            HistoryItemType: 'Action',
            HistorySummary: `Successfully executed action ${TOPIC}`,
            HistoryData: JSON.stringify({ actionState: 'Succeeded', notificationResource: TOPIC }),
          });
        }
        return json({});
      }
      case 'GraniteServiceVersion20100801.DescribeAlarmHistory':
        return json({ AlarmHistoryItems: history });
      case 'lambda.GetAccountSettings':
        return json({
          AccountLimit: { ConcurrentExecutions: 1000, UnreservedConcurrentExecutions: 1000 },
          AccountUsage: {},
        });
      case 'lambda.GetFunctionConcurrency':
        return json({});
      case 's3.GetObject':
        return {
          status: 404,
          type: 'application/xml',
          body: '<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message></Error>',
        };
      case 'webhook.GET':
        return { status: 405, body: { message: 'Method Not Allowed' } };
      default:
        return { status: 500, body: { message: `the fake has no ${operation} (${method} ${path})` } };
    }
  };

  const operationOf = (request: IncomingMessage, body: string): [string, Record<string, unknown>] => {
    const target = request.headers['x-amz-target'];
    if (typeof target === 'string')
      return [target, body ? (JSON.parse(body) as Record<string, unknown>) : {}];
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    if (request.method === 'POST' && path === '/') {
      const form = new URLSearchParams(body);
      return [`cloudformation.${form.get('Action')}`, Object.fromEntries(form)];
    }
    if (path.startsWith('/2016-08-19/account-settings')) return ['lambda.GetAccountSettings', {}];
    if (/^\/2019-09-30\/functions\/[^/]+\/concurrency/.test(path))
      return ['lambda.GetFunctionConcurrency', {}];
    if (path.startsWith('/prod/')) return [`webhook.${request.method}`, {}];
    if (request.method === 'GET' && path.startsWith('/inbox-payloads/')) return ['s3.GetObject', {}];
    return [`${request.method} ${path}`, {}];
  };

  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const [operation, input] = operationOf(request, Buffer.concat(chunks).toString('utf8'));
      calls.push(operation);
      const { status, body, type } = answer(operation, input, request.method ?? '', request.url ?? '');
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      const contentType =
        type ??
        (typeof request.headers['x-amz-target'] === 'string'
          ? 'application/x-amz-json-1.0'
          : 'application/json');
      response.writeHead(status, { 'content-type': contentType, 'x-amzn-requestid': 'fake' });
      response.end(request.method === 'HEAD' ? undefined : text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    calls,
    overrides,
    env: () => ({
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
      AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      AWS_ENDPOINT_URL_CLOUDFORMATION: url,
      AWS_ENDPOINT_URL_CLOUDWATCH: url,
      AWS_ENDPOINT_URL_DYNAMODB: url,
      AWS_ENDPOINT_URL_SQS: url,
      AWS_ENDPOINT_URL_S3: url,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: url,
      AWS_ENDPOINT_URL_LAMBDA: url,
    }),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
