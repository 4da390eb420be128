// What the console does, over a Target: the same adapters the CLI commands use (DynamoInbox, SqsQueueOps,
// the secret stores), so a page and `webhook-inbox deliveries|dlq|secrets` always agree.
import { statSync } from 'node:fs';
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { Config } from '../../config';
import { queueRetentionSeconds } from '../../config/retention';
import { METRICS_NAMESPACE, SERVICE, VERIFY_METRICS } from '../../config/telemetry';
import type { CloudWatchMetrics } from '../../lambdas/adapters/cloudwatch-metrics';
import { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { SqsQueueOps } from '../../lambdas/adapters/sqs-queue-ops';
import type { InboxRecord } from '../../lambdas/core/inbox';
import { GUIDES, generatedSecretRefusal } from '../operations/provider-guides';
import type { Opened } from '../operations/redrive-dlq';
import { entryKey, redriveSelected } from '../operations/redrive-selected';
import { randomSecret, signDelivery } from '../operations/signed-delivery';
import { CLI } from '../shared/hint';
import { describeError, maskSecret, UsageError } from '../shared/output';
import type { Target } from '../shared/target-types';
import { DeliveriesSource } from './deliveries-source';
import type { Progress } from './jobs';
import {
  type DuplicateTrend,
  duplicateBuckets,
  duplicatePeriodSeconds,
  type TrendWindow,
  windowBuckets,
} from './trends';

export interface DeadLetterGroup {
  provider: string;
  errorCode: string;
  count: number;
  /** The oldest give-up in the group (deadLetteredAt, else receivedAt), epoch ms. */
  oldestMs: number;
  records: InboxRecord[];
}

export type RedriveScope =
  | { scope: 'all' }
  | { scope: 'group'; provider: string; errorCode: string }
  | { scope: 'selection'; keys: string[] };

export interface SecretView {
  label: string;
  masked: string;
  /** When this version was stored, where that is known (Secrets Manager's version dates). */
  createdMs?: number;
}

export interface ProviderView {
  id: string;
  scheme: string;
  url: string;
  where: string;
  issuer: 'provider' | 'you';
  location: string;
  /** The local secrets file, which holds every provider's secrets under its id; none on a stack. */
  store?: string;
  secrets: SecretView[];
  /** What is known about the ages when they are not per version (local mode's file). */
  ageNote?: string;
  /** Whether deliveries still verify with the previous secret, in words, and the count where known. */
  previousUse: { text: string; count?: number };
  error?: string;
}

const LABELS = ['current', 'previous'];
const DAY_MS = 86_400_000;

/**
 * A failed read in one line with its reason code: what failed, and AWS's error name (AccessDenied,
 * Throttling) or the network's code, never AWS's message, which names the caller's ARN.
 */
function failureReason(error: unknown): string {
  const cause = error instanceof Error ? error.cause : undefined;
  if (!(error instanceof Error) || !(cause instanceof Error)) return describeError(error);
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') return `${error.message}: ${code}`;
  return cause.name && cause.name !== 'Error' ? `${error.message}: ${cause.name}` : describeError(error);
}

/** When the delivery was given up: its dead-lettered mark, else (stranded) its last failure. */
export const deadLetteredAtMs = (r: InboxRecord) =>
  Date.parse(r.deadLetteredAt ?? r.failedAt ?? r.receivedAt);

/** Dead letters (and stranded failed deliveries) by provider and error code, largest group first. */
export function groupDeadLetters(records: readonly InboxRecord[]): DeadLetterGroup[] {
  const groups = new Map<string, DeadLetterGroup>();
  for (const record of records) {
    const errorCode = record.lastErrorCode ?? 'unknown';
    const id = `${record.provider}\u0000${errorCode}`;
    const group = groups.get(id) ?? {
      provider: record.provider,
      errorCode,
      count: 0,
      oldestMs: Number.POSITIVE_INFINITY,
      records: [],
    };
    group.count++;
    group.oldestMs = Math.min(group.oldestMs, deadLetteredAtMs(record));
    group.records.push(record);
    groups.set(id, group);
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.oldestMs - b.oldestMs);
}

export class ConsoleOperations {
  readonly deliveries: DeliveriesSource;
  private readonly opened: Opened;

  constructor(
    readonly target: Target,
    readonly config: Config,
    private readonly clients: Awaited<ReturnType<Target['clients']>>,
    private readonly secretsFile?: string,
    /** Where the metric reads go; a client in the target's region when not given. */
    private readonly cloudWatch?: () => CloudWatchClient,
  ) {
    // The configured providers: a listing that names none reads each one's index partitions.
    const inbox = new DynamoInbox(clients.dynamodb, target.tableName, {
      providers: Object.keys(config.providers),
    });
    this.opened = { target, ops: new SqsQueueOps(clients.sqs), inbox };
    this.deliveries = new DeliveriesSource(inbox, Object.keys(config.providers));
  }

  get dlqName(): string {
    return this.target.dlqUrl.split('/').pop() ?? 'dlq';
  }

  async dlqCounts() {
    return this.opened.ops.counts(this.target.dlqUrl);
  }

  /**
   * The dead letters, with the stranded failed deliveries (core/replay.ts): given up without a mark, their
   * message is in the DLQ (a redrive moves it) or gone (a replay brings it back).
   */
  async deadLetterGroups(nowMs = Date.now()): Promise<DeadLetterGroup[]> {
    const [dead, stranded] = await Promise.all([
      this.deliveries.deadLettered(),
      this.deliveries.stranded(nowMs, queueRetentionSeconds(this.config) * 1000),
    ]);
    return groupDeadLetters([...dead, ...stranded]);
  }

  /** Moves the chosen dead letters back to the main queue; the records go `enqueued` (markRequeued). */
  async redrive(choice: RedriveScope, progress: Progress): Promise<string> {
    let wanted: Set<string> | undefined;
    if (choice.scope === 'group') {
      const group = (await this.deadLetterGroups()).find(
        (g) => g.provider === choice.provider && g.errorCode === choice.errorCode,
      );
      wanted = new Set(group?.records.map((r) => r.pk) ?? []);
    } else if (choice.scope === 'selection') {
      wanted = new Set(choice.keys);
    }
    const total = wanted?.size ?? (await this.dlqCounts()).visible;
    progress(0, total);
    if (wanted?.size === 0) return 'nothing to redrive';
    const result = await redriveSelected(this.opened, {
      matches: (entry) => {
        const key = entryKey(entry);
        return wanted === undefined || (key !== undefined && wanted.has(key));
      },
      ...(wanted === undefined ? {} : { expected: wanted.size }),
      onProgress: (moved) => progress(moved, total),
    });
    const missing = wanted === undefined ? 0 : wanted.size - result.deliveries;
    return (
      `moved ${result.moved} message${result.moved === 1 ? '' : 's'} to the main queue` +
      (missing > 0 ? `; ${missing} not found in the DLQ (purged, expired, or moved already)` : '')
    );
  }

  /** Purges the DLQ; the typed confirmation is the queue's name or the word `purge`. */
  async purge(confirmation: string): Promise<string> {
    if (confirmation !== this.dlqName && confirmation !== 'purge') {
      throw new UsageError(`type ${this.dlqName} or "purge" to confirm`);
    }
    const counts = await this.dlqCounts();
    await this.opened.ops.purge(this.target.dlqUrl);
    const total = counts.visible + counts.inFlight + counts.delayed;
    return `purged ~${total} message${total === 1 ? '' : 's'} from ${this.dlqName}; their inbox records stay dead-lettered`;
  }

  async providers(): Promise<ProviderView[]> {
    // One PreviousSecretUsed figure serves every provider (the metric has the service dimension only):
    // read once per page, and only if some provider has a previous secret.
    let used: Promise<{ count: number } | { error: string }> | undefined;
    const usedCount = () => {
      used ??= this.previousUseCount();
      return used;
    };
    return Promise.all(Object.values(this.config.providers).map((p) => this.providerView(p.id, usedCount)));
  }

  private async providerView(
    id: string,
    usedCount: () => Promise<{ count: number } | { error: string }>,
  ): Promise<ProviderView> {
    const provider = this.config.providers[id];
    if (!provider) throw new UsageError(`unknown provider ${id}`);
    const guide = GUIDES[provider.scheme];
    const base = {
      id,
      scheme: provider.scheme,
      url: this.target.endpointUrl(id),
      where: guide.where,
      issuer: guide.issuer,
    };
    try {
      const location = this.target.secrets.location(id);
      const values = await this.target.secrets.list(id);
      const dates = this.target.kind === 'aws' ? await this.stageDates(location) : [];
      const secrets = values.map((value, index) => ({
        label: LABELS[index] ?? 'older',
        masked: maskSecret(value),
        ...(dates[index] === undefined ? {} : { createdMs: dates[index] }),
      }));
      return {
        ...base,
        location,
        secrets,
        ...(this.target.kind === 'local' ? { ageNote: this.localAgeNote() } : {}),
        ...(this.target.kind === 'local' && this.secretsFile ? { store: this.secretsFile } : {}),
        previousUse: await this.previousUse(secrets.length > 1, usedCount),
      };
    } catch (error) {
      return { ...base, location: '', secrets: [], previousUse: { text: '' }, error: describeError(error) };
    }
  }

  private async stageDates(secretArn: string): Promise<(number | undefined)[]> {
    const { SecretsManagerStore } = await import('../../lambdas/adapters/secrets-manager-store');
    const dates = await new SecretsManagerStore(this.clients.secrets).stageDates(secretArn);
    return [dates.AWSCURRENT, dates.AWSPREVIOUS];
  }

  /** The local secrets file keeps no per-version dates: its last change is what is known. */
  private localAgeNote(): string {
    if (!this.secretsFile) return 'local secrets keep no dates';
    try {
      const changed = statSync(this.secretsFile).mtimeMs;
      return `the local secrets file keeps no per-secret dates; it last changed ${new Date(changed).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
    } catch {
      return 'local secrets keep no dates';
    }
  }

  private async previousUse(
    hasPrevious: boolean,
    usedCount: () => Promise<{ count: number } | { error: string }>,
  ): Promise<ProviderView['previousUse']> {
    if (!hasPrevious) return { text: 'no previous secret: nothing else is accepted' };
    if (this.target.kind === 'local') {
      return {
        text:
          'not known here: local mode publishes no metrics. The instance logs secretIndex: 1 on each delivery ' +
          'verified with the previous secret.',
      };
    }
    const used = await usedCount();
    if ('error' in used) return { text: `cannot read PreviousSecretUsed: ${used.error}` };
    const { count } = used;
    // The metric has the service dimension only: it counts every provider's deliveries together.
    return {
      count,
      text:
        count === 0
          ? 'not used in the last 24 h by any provider (PreviousSecretUsed is 0): safe to rotate again'
          : `${count} deliveries in the last 24 h verified with a previous secret (PreviousSecretUsed, all providers together; the verify log's secretIndex names which)`,
    };
  }

  /** The last 24 hours' PreviousSecretUsed on the stack, from CloudWatch. */
  private async previousUseCount(): Promise<{ count: number } | { error: string }> {
    try {
      const untilMs = Date.now();
      const count = await this.withMetrics((metrics) =>
        metrics.sum({
          namespace: METRICS_NAMESPACE,
          metric: VERIFY_METRICS.previousSecretUsed,
          dimensions: { service: SERVICE.verify },
          sinceMs: untilMs - DAY_MS,
          untilMs,
        }),
      );
      return { count };
    } catch (error) {
      return { error: describeError(error) };
    }
  }

  /**
   * Duplicates per bucket of a trends window, from the verify function's DeliveryDuplicate metric: one
   * GetMetricStatistics request, one period per bucket. The metric's only dimension is the service, so
   * the count is every provider's. Local mode publishes no metrics.
   */
  async duplicateTrend(window: TrendWindow, nowMs: number): Promise<DuplicateTrend> {
    if (this.target.kind === 'local') return { source: 'none' };
    try {
      const sums = await this.withMetrics((metrics) =>
        metrics.sumsPerPeriod(
          {
            namespace: METRICS_NAMESPACE,
            metric: VERIFY_METRICS.duplicate,
            dimensions: { service: SERVICE.verify },
            sinceMs: windowBuckets(window, nowMs).sinceMs,
            untilMs: nowMs,
          },
          duplicatePeriodSeconds(window),
        ),
      );
      return { source: 'metric', values: duplicateBuckets(window, nowMs, sums) };
    } catch (error) {
      return { source: 'metric', error: failureReason(error) };
    }
  }

  /** A CloudWatch client for one read, closed after it (the console reads metrics once per page). */
  private async withMetrics<T>(read: (metrics: CloudWatchMetrics) => Promise<T>): Promise<T> {
    const { createCloudWatchClient } = await import('../../lambdas/adapters/clients');
    const adapter = await import('../../lambdas/adapters/cloudwatch-metrics');
    const client = this.cloudWatch?.() ?? createCloudWatchClient({ region: this.target.region });
    try {
      return await read(new adapter.CloudWatchMetrics(client));
    } finally {
      client.destroy();
    }
  }

  /** `secrets rotate`, from the console: a given value, or a random one in the provider's format. */
  async rotate(id: string, value: string | undefined): Promise<string> {
    const provider = this.config.providers[id];
    if (!provider) throw new UsageError(`unknown provider ${id}`);
    if (value !== undefined && (value === '' || value.trim() !== value)) {
      throw new UsageError('the secret must be non-empty, without surrounding spaces or newlines');
    }
    const guide = GUIDES[provider.scheme];
    const refusal = value === undefined ? generatedSecretRefusal(guide, this.target.kind, true) : undefined;
    if (refusal !== undefined) throw new UsageError(refusal);
    const secret = value ?? randomSecret(provider);
    try {
      signDelivery(
        provider,
        { body: Buffer.from('{}'), deliveryId: 'msg_check', extraHeaders: {} },
        { secret, timestamp: Math.floor(Date.now() / 1000), url: this.target.endpointUrl(id) },
      );
    } catch {
      throw new UsageError(`not a usable ${provider.scheme} secret`);
    }
    const versions = await this.target.secrets.rotate(id, secret);
    return guide.issuer === 'you'
      ? `rotated: paste the new secret into ${guide.name} (\`${CLI} secrets show ${id} --reveal\` prints it); ${versions.length} accepted now`
      : `rotated: ${guide.name} must sign with this secret; ${versions.length} accepted now`;
  }
}
