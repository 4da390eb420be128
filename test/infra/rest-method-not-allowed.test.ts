// The REST API's 405 for every method but POST on /webhooks/{provider}. The API treats every media type as
// binary (so the POST reaches the verify Lambda byte for byte), and that changes how API Gateway handles the
// mock behind the other methods: each test pins the setting that makes one kind of request end in 405 with
// `Allow: POST` on AWS rather than in a 500 ("Unable to transform request"), which the 5xx alarm counts.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { resourcesOf, synthStack } from './synth';

type Props = Record<string, unknown>;

interface MockIntegration {
  Type: string;
  PassthroughBehavior?: string;
  ContentHandling?: string;
  RequestTemplates?: Record<string, string>;
  IntegrationResponses: {
    StatusCode: string;
    SelectionPattern?: string;
    ContentHandling?: string;
    ResponseTemplates?: Record<string, string>;
    ResponseParameters?: Record<string, string>;
  }[];
}

let template: Template;
let methods: Props[];
let mock: MockIntegration;

beforeAll(() => {
  ({ template } = synthStack());
  methods = Object.values(resourcesOf(template, 'AWS::ApiGateway::Method')).map((m) => m.Properties ?? {});
  const any = methods.filter((m) => m.HttpMethod === 'ANY');
  expect(any).toHaveLength(1);
  mock = any[0]?.Integration as MockIntegration;
});

const ALLOW_POST = { 'method.response.header.Allow': "'POST'" };

describe('ANY /webhooks/{provider}', () => {
  it('is the method GET, PUT, DELETE, PATCH, HEAD and OPTIONS reach: POST is the only other one, and there is no CORS preflight', () => {
    expect(methods.map((m) => m.HttpMethod).sort()).toEqual(['ANY', 'POST']);
    expect(mock.Type).toBe('MOCK');
  });

  it('base64-encodes a request body before the mapping template, so a body of any type is not a 500', () => {
    // binaryMediaTypes */* makes every body binary; a template can only be applied to a binary body that
    // CONVERT_TO_TEXT has turned into text.
    template.hasResourceProperties('AWS::ApiGateway::RestApi', { BinaryMediaTypes: ['*/*'] });
    expect(mock.ContentHandling).toBe('CONVERT_TO_TEXT');
  });

  it('meets the 405 template without a Content-Type (API Gateway takes application/json) and with a JSON one', () => {
    expect(mock.RequestTemplates).toEqual({ 'application/json': '{"statusCode":405}' });
  });

  it('refuses any other Content-Type with 415 instead of passing the body through, and 415 is answered as 405', () => {
    expect(mock.PassthroughBehavior).toBe('NEVER');
    template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
      ResponseType: 'UNSUPPORTED_MEDIA_TYPE',
      StatusCode: '405',
      ResponseParameters: { 'gatewayresponse.header.Allow': "'POST'" },
      ResponseTemplates: { 'application/json': '{"message":"Method Not Allowed"}' },
    });
  });

  it('answers every mock result with 405, Allow: POST and a UTF-8 body, whatever the Accept header', () => {
    // One integration response and no selection pattern: it is the default, so nothing the mock returns
    // can miss it. Without CONVERT_TO_TEXT a binary Accept (every one, under */*) would have API Gateway
    // base64-decode the text body, and fail with a 500.
    expect(mock.IntegrationResponses).toEqual([
      {
        StatusCode: '405',
        ContentHandling: 'CONVERT_TO_TEXT',
        ResponseTemplates: { 'application/json': '{"message":"Method Not Allowed"}' },
        ResponseParameters: ALLOW_POST,
      },
    ]);
    const any = methods.find((m) => m.HttpMethod === 'ANY');
    expect(any?.MethodResponses).toEqual([
      { StatusCode: '405', ResponseParameters: { 'method.response.header.Allow': true } },
    ]);
  });
});
