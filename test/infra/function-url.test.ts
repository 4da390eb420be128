// The `api: 'function-url'` option: a Lambda function URL on the verify Lambda, no API Gateway, with the
// verify Lambda's reserved concurrency as the rate cap and the same stack outputs as the other front doors.
import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVICE, STACK_OUTPUTS } from '../../config/telemetry';
import { FUNCTION_URL_RESERVED_CONCURRENCY, WebhookInbox } from '../../lib/webhook-inbox';
import { functionIdOf, projectConfig, resourcesOf, synthStack } from './synth';

let template: Template;

beforeAll(() => {
  ({ template } = synthStack({ inbox: { api: 'function-url' } }));
});

const verifyFunctionId = () => functionIdOf(template, SERVICE.verify);

type Intrinsic = string | { [fn: string]: unknown };

/** Evaluates the intrinsics an output uses, with the function URL CloudFormation would report. */
function evaluate(value: Intrinsic, functionUrl: string): string {
  if (typeof value === 'string') return value;
  const [fn, args] = Object.entries(value)[0] as [string, unknown[]];
  switch (fn) {
    case 'Fn::Join':
      return (args[1] as Intrinsic[]).map((part) => evaluate(part, functionUrl)).join(args[0] as string);
    case 'Fn::Select':
      return evaluateList(args[1] as Intrinsic, functionUrl)[args[0] as number] as string;
    case 'Fn::GetAtt':
      if (args[1] !== 'FunctionUrl') throw new Error(`unexpected attribute ${String(args[1])}`);
      return functionUrl;
    default:
      throw new Error(`unexpected intrinsic ${fn}`);
  }
}

function evaluateList(value: Intrinsic, functionUrl: string): string[] {
  const [fn, args] = Object.entries(value as object)[0] as [string, unknown[]];
  if (fn !== 'Fn::Split') throw new Error(`unexpected list intrinsic ${fn}`);
  return evaluate(args[1] as Intrinsic, functionUrl).split(args[0] as string);
}

const outputValue = (name: string) =>
  (template.toJSON().Outputs as Record<string, { Value: Intrinsic }>)[name]!.Value;

describe("api: 'function-url'", () => {
  it('gives the verify Lambda a function URL: auth type NONE, BUFFERED, no CORS', () => {
    const urls = Object.values(resourcesOf(template, 'AWS::Lambda::Url')).map((r) => r.Properties);
    expect(urls).toEqual([
      {
        AuthType: 'NONE',
        InvokeMode: 'BUFFERED',
        TargetFunctionArn: { 'Fn::GetAtt': [verifyFunctionId(), 'Arn'] },
      },
    ]);
  });

  it('builds no API Gateway, no access log and no WAF', () => {
    for (const type of [
      'AWS::ApiGateway::RestApi',
      'AWS::ApiGatewayV2::Api',
      'AWS::ApiGateway::Account',
      'AWS::WAFv2::WebACL',
    ]) {
      template.resourceCountIs(type, 0);
    }
    // The two Lambdas' log groups only.
    template.resourceCountIs('AWS::Logs::LogGroup', 2);
  });

  it(`caps the verify Lambda at ${FUNCTION_URL_RESERVED_CONCURRENCY} reserved concurrent executions by default`, () => {
    expect(
      resourcesOf(template, 'AWS::Lambda::Function')[verifyFunctionId()]?.Properties
        ?.ReservedConcurrentExecutions,
    ).toBe(FUNCTION_URL_RESERVED_CONCURRENCY);
  });

  it('lets verifyReservedConcurrency set the cap', () => {
    const { template: custom } = synthStack({
      inbox: { api: 'function-url', verifyReservedConcurrency: 75 },
    });
    custom.hasResourceProperties('AWS::Lambda::Function', { ReservedConcurrentExecutions: 75 });
  });

  it('lets anyone invoke the verify Lambda through its URL only (the two permissions a public URL needs)', () => {
    const permissions = Object.values(resourcesOf(template, 'AWS::Lambda::Permission')).map(
      (r) => r.Properties,
    );
    const verify = { 'Fn::GetAtt': [verifyFunctionId(), 'Arn'] };
    expect(permissions).toHaveLength(2);
    expect(permissions).toEqual(
      expect.arrayContaining([
        {
          Action: 'lambda:InvokeFunctionUrl',
          FunctionName: verify,
          FunctionUrlAuthType: 'NONE',
          Principal: '*',
        },
        {
          Action: 'lambda:InvokeFunction',
          FunctionName: verify,
          InvokedViaFunctionUrl: true,
          Principal: '*',
        },
      ]),
    );
  });

  it('publishes the same outputs, ApiUrl without the trailing slash, endpoints with a single one', () => {
    const functionUrl = 'https://abcdefghij0123456789abcdefghij01.lambda-url.eu-west-1.on.aws/';
    const base = 'https://abcdefghij0123456789abcdefghij01.lambda-url.eu-west-1.on.aws';
    expect(evaluate(outputValue(STACK_OUTPUTS.apiUrl), functionUrl)).toBe(base);
    expect(evaluate(outputValue('EndpointGithub'), functionUrl)).toBe(`${base}/webhooks/github`);
    expect(evaluate(outputValue('EndpointStandardWebhooks'), functionUrl)).toBe(
      `${base}/webhooks/standard-webhooks`,
    );
    for (const name of [STACK_OUTPUTS.queueUrl, STACK_OUTPUTS.tableName, STACK_OUTPUTS.bucketName]) {
      template.hasOutput(name, {});
    }
  });

  it("alarms on the function URL's 5xx share (AWS/Lambda Url5xxCount over UrlRequestCount)", () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({
              Namespace: 'AWS/Lambda',
              MetricName: 'Url5xxCount',
              Dimensions: [{ Name: 'FunctionName', Value: { Ref: verifyFunctionId() } }],
            }),
          }),
        }),
        Match.objectLike({
          Id: 'requests',
          MetricStat: Match.objectLike({
            Metric: Match.objectLike({ Namespace: 'AWS/Lambda', MetricName: 'UrlRequestCount' }),
          }),
        }),
      ]),
    });
  });

  it.each([
    ['waf: true', { waf: true }, /function URL has no WAF/],
    ['throttle', { throttle: { rateLimit: 10, burstLimit: 20 } }, /rate cap is verifyReservedConcurrency/],
  ])('refuses %s, which only an API Gateway stage can honour', (_name, props, message) => {
    const stack = new Stack(new App(), 'UrlWith');
    expect(
      () => new WebhookInbox(stack, 'Inbox', { config: projectConfig(), api: 'function-url', ...props }),
    ).toThrow(message);
  });
});
