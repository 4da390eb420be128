// The `api: 'http'` option: an HTTP API in front of the same verify Lambda, without WAF.
import { App, Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { SERVICE, STACK_OUTPUTS } from '../../config/telemetry';
import { WebhookInbox } from '../../lib/webhook-inbox';
import { functionIdOf, projectConfig, resourcesOf, synthStack } from './synth';

let template: Template;

beforeAll(() => {
  ({ template } = synthStack({ inbox: { api: 'http' } }));
});

const verifyFunctionId = () => functionIdOf(template, SERVICE.verify);

describe("api: 'http'", () => {
  it('builds an HTTP API instead of a REST API', () => {
    template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
    template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP' });
    template.resourceCountIs('AWS::ApiGateway::RestApi', 0);
  });

  it('routes only POST /webhooks/{provider}, to the verify Lambda with the REST proxy event (payload 1.0)', () => {
    const routes = Object.values(resourcesOf(template, 'AWS::ApiGatewayV2::Route')).map((r) => r.Properties);
    expect(routes.map((r) => r?.RouteKey)).toEqual(['POST /webhooks/{provider}']);
    // Invoked by this API's routes in this account only.
    template.hasResourceProperties('AWS::Lambda::Permission', {
      Principal: 'apigateway.amazonaws.com',
      SourceAccount: { Ref: 'AWS::AccountId' },
      SourceArn: Match.anyValue(),
    });
    template.hasResourceProperties('AWS::ApiGatewayV2::Integration', {
      IntegrationType: 'AWS_PROXY',
      PayloadFormatVersion: '1.0',
      IntegrationUri: { 'Fn::GetAtt': [verifyFunctionId(), 'Arn'] },
    });
  });

  it('throttles and access-logs the $default stage', () => {
    template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
      StageName: '$default',
      AutoDeploy: true,
      DefaultRouteSettings: { ThrottlingRateLimit: 200, ThrottlingBurstLimit: 400 },
      AccessLogSettings: Match.objectLike({ DestinationArn: Match.anyValue() }),
    });
  });

  it('has no WAF, since HTTP APIs cannot be associated with a web ACL', () => {
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    template.resourceCountIs('AWS::WAFv2::WebACLAssociation', 0);
  });

  it('alarms on the HTTP API 5xx metric and publishes the same outputs', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Metrics: Match.arrayWith([
        Match.objectLike({
          Id: 'errors',
          MetricStat: Match.objectLike({ Metric: Match.objectLike({ MetricName: '5xx' }) }),
        }),
      ]),
    });
    template.hasOutput(STACK_OUTPUTS.apiUrl, {});
    template.hasOutput('EndpointGithub', {
      Value: { 'Fn::Join': ['', Match.arrayWith([Match.stringLikeRegexp('/webhooks/github$')])] },
    });
  });

  it('refuses waf: true, instead of silently deploying without one', () => {
    const stack = new Stack(new App(), 'HttpWithWaf');
    expect(
      () => new WebhookInbox(stack, 'Inbox', { config: projectConfig(), api: 'http', waf: true }),
    ).toThrow(/HTTP APIs cannot have a WAF/);
  });
});
