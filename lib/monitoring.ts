// Alarms and the dashboard. Alarms read the EMF metrics the Lambdas emit under METRICS_NAMESPACE with the
// single `service` dimension (config/telemetry.ts), plus the AWS metrics of the queue, the DLQ, the
// processor and the API stage. The forwarder's metrics carry a `destination` dimension too, so each
// destination has alarms and widgets of its own.
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  FORWARD_DIMENSION,
  FORWARD_METRICS,
  METRICS_NAMESPACE,
  outputSuffix,
  PROCESS_METRICS,
  SERVICE,
  VERIFY_METRICS,
} from '../config/telemetry';
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
  /** The forwarder and its destinations, when the config has destinations with queues. */
  readonly forwarding?: ForwardingMonitoringProps;
}

export interface DestinationMonitoringTarget {
  /** The destination id: the value of the metrics' FORWARD_DIMENSION. */
  readonly id: string;
  readonly queue: sqs.IQueue;
  readonly deadLetterQueue: sqs.IQueue;
  readonly queueAgeThreshold: Duration;
}

export interface ForwardingMonitoringProps {
  readonly forwarderFunction: lambda.IFunction;
  readonly destinations: readonly DestinationMonitoringTarget[];
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

/** One destination's alarms. */
export interface DestinationAlarms {
  /** More than DESTINATION_FAILURE_RATE_PERCENT of its attempts failed, over enough attempts to mean it. */
  readonly failureRate: cloudwatch.Alarm;
  /** The oldest delivery on its queue is older than the threshold: failing, slow, or disabled and waiting. */
  readonly queueAge: cloudwatch.Alarm;
  /** Any delivery in its DLQ. */
  readonly deadLetters: cloudwatch.Alarm;
  /**
   * The forwarder disabled it (a 410 Gone) or found it disabled. Once its event source is disabled the
   * forwarder sees none of its deliveries and the metric stops: missing data keeps the alarm as it is, so
   * it stays in ALARM while the destination is disabled, and goes back to OK with the first delivery after
   * `destinations enable` (each delivered forward reports 0).
   */
  readonly disabled: cloudwatch.Alarm;
}

export interface ForwardingAlarms {
  /** The forwarder failed a whole invocation (crash or timeout), not a single record. */
  readonly forwarderErrors: cloudwatch.Alarm;
  /** Destination id to its alarms. */
  readonly destinations: Readonly<Record<string, DestinationAlarms>>;
}

/**
 * A destination's failure-rate alarm: the share of failed attempts in five minutes, in two consecutive
 * periods. A receiver that is briefly down is what the retry schedule is for; one that fails a fifth of
 * what it is sent for ten minutes is worth a look.
 */
export const DESTINATION_FAILURE_RATE_PERCENT = 20;
/** Fewer attempts than this in five minutes count as a 0% failure rate: one failure in three is noise. */
export const DESTINATION_FAILURE_MIN_ATTEMPTS = 10;

/**
 * The queue-age threshold for a retry schedule: the larger of 15 minutes and twice its longest step (a
 * message waiting out one retry step is not late; one that has been failing for two of them is worth a look).
 */
export function queueAgeThreshold(retrySchedule: readonly number[]): Duration {
  return Duration.seconds(Math.max(15 * 60, 2 * Math.max(...retrySchedule)));
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

/** A forwarder metric of one destination. */
export function forwardMetric(
  destinationId: string,
  metricName: string,
  statistic = cloudwatch.Stats.SUM,
): cloudwatch.Metric {
  return emfMetric(SERVICE.forward, metricName, statistic).with({
    dimensionsMap: { service: SERVICE.forward, [FORWARD_DIMENSION]: destinationId },
  });
}

/** A queue's depth, in-flight count and oldest message, with its DLQ's depth. */
function queueWidget(options: {
  title: string;
  queue: sqs.IQueue;
  deadLetterQueue: sqs.IQueue;
  width: number;
  labelPrefix: string;
}): cloudwatch.GraphWidget {
  const { queue, labelPrefix } = options;
  return new cloudwatch.GraphWidget({
    title: options.title,
    left: [
      queue.metricApproximateNumberOfMessagesVisible({
        label: `${labelPrefix}visible`,
        period: FIVE_MINUTES,
      }),
      queue.metricApproximateNumberOfMessagesNotVisible({
        label: `${labelPrefix}in flight`,
        period: FIVE_MINUTES,
      }),
      options.deadLetterQueue.metricApproximateNumberOfMessagesVisible({
        label: 'DLQ',
        period: FIVE_MINUTES,
      }),
    ],
    right: [
      queue.metricApproximateAgeOfOldestMessage({
        label: 'oldest message (s)',
        statistic: cloudwatch.Stats.MAXIMUM,
        period: FIVE_MINUTES,
      }),
    ],
    width: options.width,
  });
}

/** An alarm that evaluates one period and sees no data as fine, as every alarm here does. */
function alarmOn(
  scope: Construct,
  id: string,
  props: Omit<cloudwatch.AlarmProps, 'evaluationPeriods'> & { evaluationPeriods?: number },
): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    ...props,
  });
}

export class InboxMonitoring extends Construct {
  public readonly alarms: InboxAlarms;
  public readonly forwardingAlarms?: ForwardingAlarms;
  public readonly dashboard?: cloudwatch.Dashboard;
  /** Each destination's failure rate (%), shared by its alarm and its widget. */
  private readonly failureRates = new Map<string, cloudwatch.MathExpression>();

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
        alarmDescription: `Messages are waiting in the dead-letter queue: inspect with \`npx webhook-inbox dlq list --stack ${Stack.of(this).stackName}\` in the project folder.`,
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
    if (props.forwarding) this.forwardingAlarms = this.createForwardingAlarms(props.forwarding);
    const action = new SnsAction(props.topic);
    for (const alarm of this.allAlarms()) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }

    if (props.dashboard) this.dashboard = this.createDashboard(props, serverErrorRate);
  }

  private allAlarms(): cloudwatch.Alarm[] {
    const forwarding = this.forwardingAlarms;
    return [
      ...Object.values(this.alarms),
      ...(forwarding
        ? [forwarding.forwarderErrors, ...Object.values(forwarding.destinations).flatMap(Object.values)]
        : []),
    ];
  }

  private createForwardingAlarms(forwarding: ForwardingMonitoringProps): ForwardingAlarms {
    const destinations: Record<string, DestinationAlarms> = {};
    for (const { id, queue, deadLetterQueue, queueAgeThreshold } of forwarding.destinations) {
      const name = `Destination${outputSuffix(id)}`;
      // FILL: a period with failures but no successes (or the reverse) has no datapoint for the other.
      const failureRate = new cloudwatch.MathExpression({
        label: `${id}: failed attempts (%)`,
        expression:
          `IF(FILL(delivered, 0) + FILL(failed, 0) >= ${DESTINATION_FAILURE_MIN_ATTEMPTS}, ` +
          '100 * FILL(failed, 0) / (FILL(delivered, 0) + FILL(failed, 0)), 0)',
        usingMetrics: {
          delivered: forwardMetric(id, FORWARD_METRICS.delivered),
          failed: forwardMetric(id, FORWARD_METRICS.attemptFailed),
        },
        period: FIVE_MINUTES,
      });
      this.failureRates.set(id, failureRate);
      destinations[id] = {
        failureRate: alarmOn(this, `${name}FailureRateAlarm`, {
          alarmDescription: `More than ${DESTINATION_FAILURE_RATE_PERCENT}% of the attempts to forward to destination ${id} failed, in two 5-minute periods in a row: its receiver is failing or refusing them.`,
          metric: failureRate,
          threshold: DESTINATION_FAILURE_RATE_PERCENT,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
          evaluationPeriods: 2,
        }),
        queueAge: alarmOn(this, `${name}QueueAgeAlarm`, {
          alarmDescription: `The oldest delivery waiting for destination ${id} is older than ${queueAgeThreshold.toSeconds()} s: it is failing, slow, or disabled.`,
          metric: queue.metricApproximateAgeOfOldestMessage({
            statistic: cloudwatch.Stats.MAXIMUM,
            period: FIVE_MINUTES,
          }),
          threshold: queueAgeThreshold.toSeconds(),
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        }),
        deadLetters: alarmOn(this, `${name}DeadLettersAlarm`, {
          alarmDescription: `Deliveries for destination ${id} are waiting in its dead-letter queue.`,
          metric: deadLetterQueue.metricApproximateNumberOfMessagesVisible({
            statistic: cloudwatch.Stats.MAXIMUM,
            period: Duration.minutes(1),
          }),
          threshold: 0,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        }),
        disabled: alarmOn(this, `${name}DisabledAlarm`, {
          alarmDescription: `Destination ${id} answered 410 Gone and is disabled: \`npx webhook-inbox destinations enable ${id} --stack ${Stack.of(this).stackName}\` in the project folder, once it is back.`,
          metric: forwardMetric(id, FORWARD_METRICS.disabled, cloudwatch.Stats.MAXIMUM),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          treatMissingData: cloudwatch.TreatMissingData.IGNORE,
        }),
      };
    }
    const fn = forwarding.forwarderFunction;
    return {
      forwarderErrors: alarmOn(this, 'ForwarderErrorsAlarm', {
        alarmDescription:
          'The forwarder Lambda failed a whole invocation (crash or timeout), not a single record.',
        metric: fn.metricErrors({ statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES }),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      }),
      destinations,
    };
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
        alarms: this.allAlarms(),
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
      queueWidget({ title: 'Queues', queue, deadLetterQueue, width: 12, labelPrefix: 'queue ' }),
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
    if (props.forwarding) this.addForwardingWidgets(dashboard, props.forwarding);
    return dashboard;
  }

  /** One row per destination: its attempts and failure rate, its latency, its queue and DLQ. */
  private addForwardingWidgets(dashboard: cloudwatch.Dashboard, forwarding: ForwardingMonitoringProps): void {
    const fn = forwarding.forwarderFunction;
    const sum = { statistic: cloudwatch.Stats.SUM, period: FIVE_MINUTES };
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Forwarder Lambda',
        left: [
          fn.metricErrors({ ...sum, label: 'errors' }),
          fn.metricThrottles({ ...sum, label: 'throttles' }),
        ],
        right: [fn.metricDuration({ statistic: cloudwatch.Stats.p(99), label: 'p99 (ms)' })],
        width: 24,
      }),
    );
    for (const { id, queue, deadLetterQueue } of forwarding.destinations) {
      const { latency, ...counts } = FORWARD_METRICS;
      dashboard.addWidgets(
        new cloudwatch.GraphWidget({
          title: `Destination ${id}: attempts`,
          left: Object.values(counts).map((name) => forwardMetric(id, name).with({ label: name })),
          right: [this.failureRates.get(id) as cloudwatch.MathExpression],
          width: 8,
        }),
        new cloudwatch.GraphWidget({
          title: `Destination ${id}: latency to 2xx (ms)`,
          left: [cloudwatch.Stats.p(50), cloudwatch.Stats.p(99)].map((stat) =>
            forwardMetric(id, latency, stat).with({ label: `${latency} ${stat}` }),
          ),
          width: 8,
        }),
        queueWidget({ title: `Destination ${id}: queue`, queue, deadLetterQueue, width: 8, labelPrefix: '' }),
      );
    }
  }
}
