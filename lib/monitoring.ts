// Alarms and the dashboard. Alarms read the EMF metrics the Lambdas emit under METRICS_NAMESPACE with the
// single `service` dimension (config/telemetry.ts), plus the AWS metrics of the queue, the DLQ, the
// processor and the API stage.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { METRICS_NAMESPACE, PROCESS_METRICS, SERVICE, VERIFY_METRICS } from '../config/telemetry';
import type { FrontDoor } from './front-door';

const FIVE_MINUTES = Duration.minutes(5);

export interface MonitoringProps {
  readonly topic: sns.ITopic;
  readonly frontDoor: FrontDoor;
  readonly verifyFunction: lambda.IFunction;
  readonly processorFunction: lambda.IFunction;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly queueAgeThreshold: Duration;
  readonly serverErrorRatePercent: number;
  readonly signatureFailureThreshold: number;
  readonly dashboard: boolean;
}

export interface InboxAlarms {
  /** Any message in the dead-letter queue. */
  readonly deadLetters: cloudwatch.Alarm;
  /** The oldest message in the main queue is older than the threshold: the processor is falling behind. */
  readonly queueAge: cloudwatch.Alarm;
  /** Share of API responses that are 5xx (any cause: Lambda errors, timeouts, throttles, dependency 503s). */
  readonly serverErrorRate: cloudwatch.Alarm;
  /** More rejected signatures than the threshold in five minutes: an attack, or a secret rotated at one end only. */
  readonly signatureFailures: cloudwatch.Alarm;
  readonly processorErrors: cloudwatch.Alarm;
  readonly processorThrottles: cloudwatch.Alarm;
}

export function emfMetric(
  service: string,
  metricName: string,
  statistic = cloudwatch.Stats.SUM,
): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: METRICS_NAMESPACE,
    metricName,
    dimensionsMap: { service },
    statistic,
    period: FIVE_MINUTES,
  });
}

export class InboxMonitoring extends Construct {
  public readonly alarms: InboxAlarms;
  public readonly dashboard?: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const { frontDoor, queue, deadLetterQueue, processorFunction } = props;

    // The API's 5xx share rather than the verify Lambda's Errors metric: the handler turns dependency
    // failures into 503 answers (so Errors stays at zero while DynamoDB or SQS is down), and a Lambda that is
    // throttled or times out shows up only at the API. The IF keeps an idle stage at 0 instead of no data.
    const serverErrorRate = new cloudwatch.MathExpression({
      label: 'API 5xx responses (%)',
      expression: 'IF(requests > 0, 100 * errors / requests, 0)',
      usingMetrics: {
        errors: frontDoor.metricServerErrors({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
        requests: frontDoor.metricRequests({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
      },
      period: FIVE_MINUTES,
    });

    this.alarms = {
      deadLetters: new cloudwatch.Alarm(this, 'DeadLettersAlarm', {
        alarmDescription:
          'Messages are waiting in the dead-letter queue: inspect with `webhook-inbox dlq list`.',
        metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
          statistic: cloudwatch.Stats.MAXIMUM,
          period: Duration.minutes(1),
        }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      queueAge: new cloudwatch.Alarm(this, 'QueueAgeAlarm', {
        alarmDescription: `The oldest queued delivery is older than ${props.queueAgeThreshold.toSeconds()} s: the processor is failing or falling behind.`,
        metric: queue.metricApproximateAgeOfOldestMessage({
          statistic: cloudwatch.Stats.MAXIMUM,
          period: FIVE_MINUTES,
        }),
        threshold: props.queueAgeThreshold.toSeconds(),
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      serverErrorRate: new cloudwatch.Alarm(this, 'ServerErrorRateAlarm', {
        alarmDescription: `More than ${props.serverErrorRatePercent}% of webhook requests answered 5xx in 5 minutes; providers are retrying.`,
        metric: serverErrorRate,
        threshold: props.serverErrorRatePercent,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      signatureFailures: new cloudwatch.Alarm(this, 'SignatureFailuresAlarm', {
        alarmDescription: `More than ${props.signatureFailureThreshold} signature failures in 5 minutes: an attack, or a secret rotated at the provider but not here (or the reverse).`,
        metric: emfMetric(SERVICE.verify, VERIFY_METRICS.signatureFailure),
        threshold: props.signatureFailureThreshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      processorErrors: new cloudwatch.Alarm(this, 'ProcessorErrorsAlarm', {
        alarmDescription:
          'The processor Lambda failed a whole invocation (crash or timeout), not a single record.',
        metric: processorFunction.metricErrors({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
      processorThrottles: new cloudwatch.Alarm(this, 'ProcessorThrottlesAlarm', {
        alarmDescription:
          'The processor Lambda was throttled: raise its concurrency or lower maxConcurrency.',
        metric: processorFunction.metricThrottles({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      }),
    };
    const action = new SnsAction(props.topic);
    for (const alarm of Object.values(this.alarms)) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }

    if (props.dashboard) this.dashboard = this.createDashboard(props, serverErrorRate);
  }

  private createDashboard(props: MonitoringProps, serverErrorRate: cloudwatch.IMetric): cloudwatch.Dashboard {
    const { frontDoor, queue, deadLetterQueue, verifyFunction, processorFunction } = props;
    const sum = { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES };
    const latencyStats = [cloudwatch.Stats.p(50), cloudwatch.Stats.p(99)];
    const counts = (service: string, names: Record<string, string>, skip: string[]) =>
      Object.values(names)
        .filter((name) => !skip.includes(name))
        .map((name) => emfMetric(service, name));
    const latencies = (service: string, name: string) =>
      latencyStats.map((stat) => emfMetric(service, name, stat).with({ label: `${name} ${stat}` }));

    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', { defaultInterval: Duration.hours(3) });
    dashboard.addWidgets(
      new cloudwatch.AlarmStatusWidget({
        title: 'Alarms',
        alarms: Object.values(this.alarms),
        width: 24,
        height: 3,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'API requests',
        left: [
          frontDoor.metricRequests({ ...sum, label: 'requests' }),
          frontDoor.metricClientErrors({ ...sum, label: '4xx' }),
          frontDoor.metricServerErrors({ ...sum, label: '5xx' }),
        ],
        right: [serverErrorRate],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'API latency (ms)',
        left: latencyStats.map((stat) =>
          frontDoor.metricLatency({ statistic: stat, period: FIVE_MINUTES, label: `latency ${stat}` }),
        ),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Verify: deliveries',
        left: counts(SERVICE.verify, VERIFY_METRICS, [VERIFY_METRICS.enqueueLatency]),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Verify: enqueue latency (ms)',
        left: latencies(SERVICE.verify, VERIFY_METRICS.enqueueLatency),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Processor: events',
        left: counts(SERVICE.process, PROCESS_METRICS, [PROCESS_METRICS.messageAge]),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Processor: message age at processing',
        left: latencies(SERVICE.process, PROCESS_METRICS.messageAge),
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Queues',
        left: [
          queue.metricApproximateNumberOfMessagesVisible({ label: 'queue visible', period: FIVE_MINUTES }),
          queue.metricApproximateNumberOfMessagesNotVisible({
            label: 'queue in flight',
            period: FIVE_MINUTES,
          }),
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({ label: 'DLQ', period: FIVE_MINUTES }),
        ],
        right: [
          queue.metricApproximateAgeOfOldestMessage({
            label: 'oldest message (s)',
            statistic: cloudwatch.Stats.MAXIMUM,
            period: FIVE_MINUTES,
          }),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Lambdas',
        left: [
          verifyFunction.metricErrors({ ...sum, label: 'verify errors' }),
          verifyFunction.metricThrottles({ ...sum, label: 'verify throttles' }),
          processorFunction.metricErrors({ ...sum, label: 'processor errors' }),
          processorFunction.metricThrottles({ ...sum, label: 'processor throttles' }),
        ],
        right: [
          verifyFunction.metricDuration({ statistic: cloudwatch.Stats.p(99), label: 'verify p99 (ms)' }),
          processorFunction.metricDuration({
            statistic: cloudwatch.Stats.p(99),
            label: 'processor p99 (ms)',
          }),
        ],
        width: 12,
      }),
    );
    return dashboard;
  }
}
