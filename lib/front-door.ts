// The public entry point: `POST /webhooks/{provider}` in front of the verify Lambda, as a REST API (the
// default: WAF, request validation, 404/405 answered by API Gateway), an HTTP API (about a third of the
// price per request, no WAF) or a Lambda function URL (no API Gateway at all: no charge beyond Lambda, no
// WAF, no access log, reserved concurrency as the only rate cap). The two APIs pass the verify Lambda the
// REST proxy event (payload format 1.0); a function URL passes its own event (payload format 2.0), which
// the handler reads too (lambdas/verify/front-door-event.ts).
import { ArnFormat, Aws, Duration, Fn, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import type { Construct, IConstruct } from 'constructs';

/** The one route. `{provider}` is the provider id from the config. */
export const WEBHOOK_RESOURCE = 'webhooks';
export const PROVIDER_PATH_PARAMETER = 'provider';

export interface ThrottleSettings {
  /** Steady-state requests per second across the stage. */
  readonly rateLimit: number;
  /** Requests the stage absorbs at once above the steady rate. */
  readonly burstLimit: number;
}

export interface FrontDoorProps {
  readonly handler: lambda.IFunction;
  readonly throttle: ThrottleSettings;
  readonly accessLogRetention: logs.RetentionDays;
  readonly logRemovalPolicy: RemovalPolicy;
  readonly tracing: boolean;
  /** REST only. */
  readonly stageName: string;
  /** REST only: undefined turns WAF off. */
  readonly waf?: WafSettings;
}

export interface WafSettings {
  /** Requests per source IP per five minutes before WAF blocks that IP. */
  readonly rateLimit: number;
  /** Log blocked requests to a CloudWatch log group. */
  readonly logging: boolean;
}

/** What the construct needs from any kind of front door. */
export interface FrontDoor {
  /** The base URL, without a trailing slash: endpoints are `${url}/webhooks/{provider}`. */
  readonly url: string;
  /** API Gateway's access log; a function URL has none. */
  readonly accessLogGroup?: logs.LogGroup;
  readonly metricRequests: (props?: cloudwatch.MetricOptions) => cloudwatch.Metric;
  readonly metricServerErrors: (props?: cloudwatch.MetricOptions) => cloudwatch.Metric;
  readonly metricClientErrors: (props?: cloudwatch.MetricOptions) => cloudwatch.Metric;
  readonly metricLatency: (props?: cloudwatch.MetricOptions) => cloudwatch.Metric;
}

export interface RestFrontDoor extends FrontDoor {
  readonly api: apigw.RestApi;
  readonly webAcl?: wafv2.CfnWebACL;
  readonly wafLogGroup?: logs.LogGroup;
}

export interface HttpFrontDoor extends FrontDoor {
  readonly api: apigwv2.HttpApi;
  readonly stage: apigwv2.HttpStage;
}

export interface FunctionUrlFrontDoor extends FrontDoor {
  readonly functionUrl: lambda.FunctionUrl;
}

const JSON_CONTENT = 'application/json';
const METHOD_NOT_ALLOWED_BODY = JSON.stringify({ message: 'Method Not Allowed' });

function accessLogGroup(scope: Construct, props: FrontDoorProps): logs.LogGroup {
  return new logs.LogGroup(scope, 'AccessLogs', {
    retention: props.accessLogRetention,
    removalPolicy: props.logRemovalPolicy,
  });
}

/**
 * API Gateway's permission to invoke the verify Lambda names the API's ARN (SourceArn) but not the account;
 * SourceAccount is added so the permission is bound to this account too (Control Tower's CT.LAMBDA.PR.2).
 */
function bindPermissionsToAccount(api: IConstruct): void {
  for (const child of api.node.findAll()) {
    if (child instanceof lambda.CfnPermission && child.principal === 'apigateway.amazonaws.com') {
      child.sourceAccount = Stack.of(api).account;
    }
  }
}

/**
 * Access log fields: who called what and what came back. No headers and no body: signatures and payloads
 * stay out of the logs.
 */
function restAccessLogFormat(): apigw.AccessLogFormat {
  const F = apigw.AccessLogField;
  return accessLogFormat({
    resourcePath: F.contextResourcePath(),
    errorType: F.contextErrorResponseType(),
    wafStatus: F.contextWafStatus(),
  });
}

function httpAccessLogFormat(): apigw.AccessLogFormat {
  const F = apigw.AccessLogField;
  return accessLogFormat({
    routeKey: F.contextRouteKey(),
    integrationError: F.contextIntegrationErrorMessage(),
  });
}

/** The fields both front doors log, plus those only one of them has. */
function accessLogFormat(specific: Record<string, string>): apigw.AccessLogFormat {
  const F = apigw.AccessLogField;
  return apigw.AccessLogFormat.custom(
    JSON.stringify({
      requestId: F.contextRequestId(),
      ip: F.contextIdentitySourceIp(),
      requestTime: F.contextRequestTime(),
      httpMethod: F.contextHttpMethod(),
      path: F.contextPath(),
      status: F.contextStatus(),
      protocol: F.contextProtocol(),
      responseLength: F.contextResponseLength(),
      responseLatency: F.contextResponseLatency(),
      integrationLatency: F.contextIntegrationLatency(),
      integrationStatus: F.contextIntegrationStatus(),
      ...specific,
    }),
  );
}

/**
 * REST API. Only `POST /webhooks/{provider}` reaches the Lambda; API Gateway itself answers everything else:
 * - unknown paths: REST APIs answer 403 "Missing Authentication Token" for a route that does not exist, so
 *   that gateway response is turned into a 404 (no method here uses IAM auth or API keys, so nothing else
 *   can produce it);
 * - other methods on `/webhooks/{provider}`: an `ANY` method with a mock integration answers 405 with
 *   `Allow: POST` (an explicit method beats `ANY`); see `methodNotAllowedIntegration` for why it holds for
 *   every method, body and content type.
 */
export function createRestFrontDoor(scope: Construct, props: FrontDoorProps): RestFrontDoor {
  const logGroup = accessLogGroup(scope, props);
  const api = new apigw.RestApi(scope, 'Api', {
    description: `Receives webhooks at POST /${WEBHOOK_RESOURCE}/{${PROVIDER_PATH_PARAMETER}}`,
    // Signatures are computed over the exact bytes: every body arrives base64-encoded, never re-encoded.
    binaryMediaTypes: ['*/*'],
    // Providers call from their own data centres; an edge-optimized endpoint would only add a CloudFront hop.
    endpointConfiguration: { types: [apigw.EndpointType.REGIONAL] },
    // Access and execution logging need the account-level API Gateway CloudWatch role.
    cloudWatchRole: true,
    deployOptions: {
      stageName: props.stageName,
      throttlingRateLimit: props.throttle.rateLimit,
      throttlingBurstLimit: props.throttle.burstLimit,
      accessLogDestination: new apigw.LogGroupLogDestination(logGroup),
      accessLogFormat: restAccessLogFormat(),
      tracingEnabled: props.tracing,
      // Execution logs at ERROR only; data tracing would write request bodies and signature headers to logs.
      loggingLevel: apigw.MethodLoggingLevel.ERROR,
      dataTraceEnabled: false,
      metricsEnabled: false,
    },
  });

  // RestApi always adds an `Endpoint` output with a generated name; the stack publishes `ApiUrl` instead.
  api.node.tryRemoveChild('Endpoint');

  const validator = api.addRequestValidator('PathValidator', {
    requestValidatorName: 'provider-path-parameter',
    validateRequestParameters: true,
    validateRequestBody: false,
  });
  const providerResource = api.root.addResource(WEBHOOK_RESOURCE).addResource(`{${PROVIDER_PATH_PARAMETER}}`);
  providerResource.addMethod(
    'POST',
    new apigw.LambdaIntegration(props.handler, { proxy: true, allowTestInvoke: false }),
    {
      authorizationType: apigw.AuthorizationType.NONE,
      requestValidator: validator,
      requestParameters: { [`method.request.path.${PROVIDER_PATH_PARAMETER}`]: true },
    },
  );

  providerResource.addMethod('ANY', methodNotAllowedIntegration(), {
    authorizationType: apigw.AuthorizationType.NONE,
    requestValidator: validator,
    methodResponses: [{ statusCode: '405', responseParameters: { 'method.response.header.Allow': true } }],
  });
  api.addGatewayResponse('NotFound', {
    type: apigw.ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    templates: { [JSON_CONTENT]: JSON.stringify({ message: 'Not Found' }) },
  });
  // The mock's 415 for a content type without a request template (methodNotAllowedIntegration). The Lambda
  // proxy integration on POST never produces 415, so every 415 here is another method, and it becomes 405.
  api.addGatewayResponse('MethodNotAllowed', {
    type: apigw.ResponseType.UNSUPPORTED_MEDIA_TYPE,
    statusCode: '405',
    responseHeaders: { Allow: "'POST'" },
    templates: { [JSON_CONTENT]: METHOD_NOT_ALLOWED_BODY },
  });

  bindPermissionsToAccount(api);

  const stage = api.deploymentStage;
  const waf = props.waf ? createWebAcl(scope, stage, props.waf) : undefined;
  return {
    api,
    url: Fn.join('', [
      'https://',
      api.restApiId,
      '.execute-api.',
      Aws.REGION,
      '.',
      Aws.URL_SUFFIX,
      '/',
      stage.stageName,
    ]),
    accessLogGroup: logGroup,
    webAcl: waf?.webAcl,
    wafLogGroup: waf?.logGroup,
    metricRequests: (o) => stage.metricCount(o),
    metricServerErrors: (o) => stage.metricServerError(o),
    metricClientErrors: (o) => stage.metricClientError(o),
    metricLatency: (o) => stage.metricLatency(o),
  };
}

/**
 * The mock behind `ANY /webhooks/{provider}`: 405 with `Allow: POST` for GET, PUT, DELETE, PATCH, HEAD and
 * OPTIONS, with or without a body or a content type. The API lists every media type as binary (so the POST
 * gets its exact bytes), which makes every request and every answer binary to API Gateway. Case by case:
 * - Request, any body: a binary payload can only go through a mapping template once it is text, so
 *   `contentHandling: CONVERT_TO_TEXT` has API Gateway base64-encode it first. Without it, API Gateway
 *   fails to transform the request and answers 500 (which the 5xx-rate alarm counts).
 * - Request without a Content-Type (a GET, a HEAD): API Gateway takes it as `application/json`, so the
 *   JSON template applies and the mock answers 405.
 * - Request with a JSON Content-Type: the same template, whatever the body (the template never reads it).
 * - Request with any other Content-Type: no template matches, and `passthroughBehavior: NEVER` refuses it
 *   with API Gateway's 415 rather than passing the body to the mock; the UNSUPPORTED_MEDIA_TYPE gateway
 *   response turns that into 405 with `Allow: POST`.
 * - Answer: for an `Accept` that is a binary media type (here every one is) and no content handling, API
 *   Gateway would base64-decode the mock's text body, which fails and answers 500; `contentHandling:
 *   CONVERT_TO_TEXT` on the integration response answers text as UTF-8 whatever the `Accept`. A HEAD gets
 *   the same status and headers, without the body.
 */
function methodNotAllowedIntegration(): apigw.MockIntegration {
  return new apigw.MockIntegration({
    requestTemplates: { [JSON_CONTENT]: JSON.stringify({ statusCode: 405 }) },
    passthroughBehavior: apigw.PassthroughBehavior.NEVER,
    contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
    integrationResponses: [
      {
        statusCode: '405',
        contentHandling: apigw.ContentHandling.CONVERT_TO_TEXT,
        responseTemplates: { [JSON_CONTENT]: METHOD_NOT_ALLOWED_BODY },
        responseParameters: { 'method.response.header.Allow': "'POST'" },
      },
    ],
  });
}

/**
 * A regional web ACL on the REST stage: known-bad IPs (AWS IP reputation list) and a per-IP rate limit. The
 * AWS common rule set is left out on purpose: its SizeRestrictions_BODY rule blocks bodies over 8 KB, and
 * webhook payloads (GitHub pushes, Shopify orders) are routinely larger.
 */
function createWebAcl(
  scope: Construct,
  stage: apigw.Stage,
  settings: WafSettings,
): { webAcl: wafv2.CfnWebACL; logGroup?: logs.LogGroup } {
  const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
    cloudWatchMetricsEnabled: true,
    metricName,
    sampledRequestsEnabled: true,
  });
  const webAcl = new wafv2.CfnWebACL(scope, 'WebAcl', {
    scope: 'REGIONAL',
    description: 'webhook-inbox: IP reputation list and a per-IP rate limit',
    defaultAction: { allow: {} },
    visibilityConfig: visibility('WebhookInboxWebAcl'),
    rules: [
      {
        name: 'AWSManagedRulesAmazonIpReputationList',
        priority: 0,
        overrideAction: { none: {} },
        statement: {
          managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesAmazonIpReputationList' },
        },
        visibilityConfig: visibility('WebhookInboxIpReputation'),
      },
      {
        name: 'RateLimitPerSourceIp',
        priority: 1,
        action: { block: {} },
        statement: {
          rateBasedStatement: { limit: settings.rateLimit, aggregateKeyType: 'IP', evaluationWindowSec: 300 },
        },
        visibilityConfig: visibility('WebhookInboxRateLimit'),
      },
    ],
  });
  new wafv2.CfnWebACLAssociation(scope, 'WebAclAssociation', {
    resourceArn: stage.stageArn,
    webAclArn: webAcl.attrArn,
  });
  if (!settings.logging) return { webAcl };

  // WAF only logs to groups named aws-waf-logs-*, so this group has a fixed name; it is deleted with the
  // stack (a retained group would make the next deployment under the same stack name fail).
  const logGroupName = `aws-waf-logs-${Stack.of(scope).stackName}-${scope.node.id}`;
  const logGroup = new logs.LogGroup(scope, 'WafLogs', {
    logGroupName,
    retention: logs.RetentionDays.ONE_MONTH,
    removalPolicy: RemovalPolicy.DESTROY,
  });
  const logging = new wafv2.CfnLoggingConfiguration(scope, 'WafLogging', {
    resourceArn: webAcl.attrArn,
    // WAF wants the log group ARN without the `:*` suffix CloudFormation's Arn attribute carries.
    logDestinationConfigs: [
      Stack.of(scope).formatArn({
        service: 'logs',
        resource: 'log-group',
        resourceName: logGroupName,
        arnFormat: ArnFormat.COLON_RESOURCE_NAME,
      }),
    ],
    // Only blocked requests: allowed ones are already in the access log.
    loggingFilter: {
      DefaultBehavior: 'DROP',
      Filters: [
        {
          Behavior: 'KEEP',
          Requirement: 'MEETS_ANY',
          Conditions: [{ ActionCondition: { Action: 'BLOCK' } }],
        },
      ],
    },
  });
  logging.node.addDependency(logGroup);
  return { webAcl, logGroup };
}

/**
 * HTTP API: the same route, about a third of the REST price per request. HTTP APIs cannot be associated
 * with a WAF web ACL, answer 404 (not 405) to other methods, and have no request validation.
 */
export function createHttpFrontDoor(scope: Construct, props: FrontDoorProps): HttpFrontDoor {
  const logGroup = accessLogGroup(scope, props);
  const api = new apigwv2.HttpApi(scope, 'HttpApi', {
    description: `Receives webhooks at POST /${WEBHOOK_RESOURCE}/{${PROVIDER_PATH_PARAMETER}}`,
    createDefaultStage: false,
  });
  api.addRoutes({
    path: `/${WEBHOOK_RESOURCE}/{${PROVIDER_PATH_PARAMETER}}`,
    methods: [apigwv2.HttpMethod.POST],
    integration: new HttpLambdaIntegration('VerifyIntegration', props.handler, {
      // The REST proxy event shape, so one handler serves both front doors and local mode.
      payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_1_0,
      timeout: Duration.seconds(29),
    }),
  });
  const stage = new apigwv2.HttpStage(scope, 'HttpStage', {
    httpApi: api,
    stageName: '$default',
    autoDeploy: true,
    throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
    accessLogSettings: {
      destination: new apigwv2.LogGroupLogDestination(logGroup),
      format: httpAccessLogFormat(),
    },
  });
  bindPermissionsToAccount(api);
  return {
    api,
    stage,
    url: api.apiEndpoint,
    accessLogGroup: logGroup,
    metricRequests: (o) => stage.metricCount(o),
    metricServerErrors: (o) => stage.metricServerError(o),
    metricClientErrors: (o) => stage.metricClientError(o),
    metricLatency: (o) => stage.metricLatency(o),
  };
}

/**
 * Lambda function URL: the verify Lambda answers the internet itself, as in AWS's EventBridge inbound-webhook
 * quick start. Auth type NONE (authenticity is the provider's signature, checked by the handler), BUFFERED
 * (the answer is small and whole), no CORS (providers call server to server; browsers have no business
 * here). Every path and method reaches the Lambda, which answers 404 for anything but
 * `/webhooks/{provider}` and 405 for anything but POST. The rate cap is the function's reserved
 * concurrency, set by the construct.
 */
export function createFunctionUrlFrontDoor(
  scope: Construct,
  props: Pick<FrontDoorProps, 'handler'>,
): FunctionUrlFrontDoor {
  const functionUrl = new lambda.FunctionUrl(scope, 'FunctionUrl', {
    function: props.handler,
    authType: lambda.FunctionUrlAuthType.NONE,
    invokeMode: lambda.InvokeMode.BUFFERED,
  });
  // The FunctionUrl attribute ends with `/`; the base URL is `https://<host>` so endpoints have one slash.
  const host = Fn.select(2, Fn.split('/', functionUrl.url));
  const metric = (name: string) => (o?: cloudwatch.MetricOptions) => props.handler.metric(name, o);
  return {
    functionUrl,
    url: Fn.join('', ['https://', host]),
    metricRequests: metric('UrlRequestCount'),
    metricServerErrors: metric('Url5xxCount'),
    metricClientErrors: metric('Url4xxCount'),
    metricLatency: metric('UrlRequestLatency'),
  };
}
