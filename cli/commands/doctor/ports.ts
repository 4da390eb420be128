// What the doctor's checks act through. The command wires the adapters (lambdas/adapters) to a deployed
// stack; tests pass the emulators' adapters or small fakes. The checks themselves never build a client.
import type { Config, ForwardDestination } from '../../../config';
// The adapter's own result types: a type-only import, so the checks load no SDK.
import type {
  AlarmActionRecord,
  AlarmState,
  AlarmSummary,
} from '../../../lambdas/adapters/cloudwatch-alarms';
import type { InboxRecord } from '../../../lambdas/core/inbox';
import type { TestOutcome } from '../../operations/destination-test-delivery';
import type { ProcessedOnceTiming } from '../../operations/processed-once';
import type { HttpResult } from '../../operations/signed-delivery';
import type { Target } from '../../shared/target-types';

export type {
  AlarmActionRecord,
  AlarmState,
  AlarmSummary,
} from '../../../lambdas/adapters/cloudwatch-alarms';

/** CloudWatch, as lambdas/adapters/cloudwatch-alarms.ts gives it. */
export interface AlarmOps {
  describe(names: readonly string[]): Promise<AlarmSummary[]>;
  setState(name: string, state: AlarmState, reason: string): Promise<void>;
  actionsSince(name: string, sinceMs: number): Promise<AlarmActionRecord[]>;
}

/** Lambda, as lambdas/adapters/lambda-account.ts gives it. */
export interface LambdaAccountOps {
  concurrency(): Promise<{ limit: number; unreserved: number }>;
  reservedConcurrency(functionName: string): Promise<number | undefined>;
}

/** One resource of the stack, from ListStackResources (lambdas/adapters/stack-resources.ts). */
export interface StackResource {
  logicalId: string;
  physicalId: string;
  type: string;
}

export interface MoveTask {
  status: string;
}

/** SQS's redrive settings and move tasks for the inbox's queue pair. */
export interface RedriveOps {
  /** The main queue's RedrivePolicy and the DLQ's RedriveAllowPolicy, as JSON text. */
  policies(): Promise<{ redrivePolicy?: string; redriveAllowPolicy?: string }>;
  /** ListMessageMoveTasks on the DLQ: its latest task, if any. */
  latestMove(): Promise<MoveTask | undefined>;
}

/** A light read of each resource the CLI works on: resolves if the CLI can read it. */
export interface ResourceProbes {
  table(): Promise<void>;
  queue(): Promise<void>;
  dlq(): Promise<void>;
  bucket(): Promise<void>;
}

export interface HttpOps {
  post(url: string, body: Buffer, headers: Record<string, string>): Promise<HttpResult>;
  /** A bodiless request with another method; resolves to the status code. */
  request(method: string, url: string): Promise<number>;
}

export interface DoctorTiming {
  processed: ProcessedOnceTiming;
  /** How long to wait for CloudWatch to record the alarm's action. */
  alarmWaitMs: number;
  alarmPollMs: number;
}

export interface DoctorOptions {
  /** Send the signed test delivery and the destinations' test events (writes). */
  delivery: boolean;
  /** Set an alarm's state to see it notify (writes). */
  alarm: boolean;
}

export interface DoctorContext {
  stack: {
    name: string;
    region: string;
    outputs: Record<string, string>;
    /** Outputs the CLI needs (the inbox's, the configured destinations') that the stack lacks. */
    missingOutputs: string[];
  };
  config: Config;
  /** Built from the outputs; undefined when they lack what the CLI needs. */
  target?: Target;
  /** ListStackResources, read once. */
  resources(): Promise<StackResource[]>;
  probes: ResourceProbes;
  inbox: { get(pk: string): Promise<InboxRecord | undefined> };
  http: HttpOps;
  alarms: AlarmOps;
  lambda: LambdaAccountOps;
  redrive: RedriveOps;
  testDestination(destination: ForwardDestination): Promise<TestOutcome>;
  clock: { nowMs(): number; sleep(ms: number): Promise<void> };
  timing: DoctorTiming;
  options: DoctorOptions;
}
