// The extension point: a typed handler per provider and event type. Each declares a zod schema; the
// handler receives the parsed, typed data. A body that does not match is a permanent error (dead-lettered
// at once), because retrying the same bytes cannot make them match.
//
// Import zod as a namespace, `import * as z from 'zod'`, as the shipped files do: esbuild then bundles only
// the parts the schemas use. `import { z } from 'zod'` bundles all of it, every locale included: about
// 350 KiB more in the processor Lambda's bundle and some 15% more CPU at its cold start.
import type * as z from 'zod';

export interface EventContext {
  provider: string;
  eventType: string;
  /** Stable across redeliveries and redrives: pass it downstream as an idempotency key. */
  idempotencyKey: string;
  dedupKey: string;
  deliveryId?: string;
  /** When the verify Lambda accepted the delivery (ISO 8601). */
  receivedAt: string;
  /**
   * When the provider says the event happened (ISO 8601), from signed material: Stripe's `created`,
   * Standard Webhooks' `timestamp`, Paddle's `occurred_at`, ... Where the provider says nothing (GitHub),
   * the receive time. Delivery order is not event order: compare with this, or use `acceptIfNewer`.
   */
  occurredAt: string;
  /**
   * Whether `version` is the newest seen for `resourceKey` (this provider's), recorded in one conditional
   * write. False means an equal or newer version was already handled: skip the write that would overwrite
   * newer state, and return normally (the delivery is then counted `stale_skipped`). A retry of this same
   * delivery gets true again. `version`: a number (larger is newer), a Date or an ISO-8601 string.
   */
  acceptIfNewer(resourceKey: string, version: number | Date | string): Promise<boolean>;
  /** How many times SQS has handed this message out, this one included. */
  receiveCount: number;
  /** The exact bytes received, for re-verification or auditing. */
  rawBody: Buffer;
  /**
   * Aborted when the invocation is about to run out of time: pass it to fetch and the AWS SDK so a hanging
   * downstream call is cancelled. A handler still running then is failed as `handler_timeout` and retried.
   */
  signal: AbortSignal;
  log(message: string, attributes?: Record<string, string | number | boolean | undefined>): void;
}

export interface EventDefinition<S extends z.ZodType = z.ZodType> {
  provider: string;
  /** The provider's event type, or `*` for every type the provider sends that has no exact entry. */
  type: string;
  schema: S;
  handle(data: z.output<S>, context: EventContext): Promise<void> | void;
}

/** Keeps `data` typed from the schema at the definition site. */
export function defineEvent<S extends z.ZodType>(definition: EventDefinition<S>): EventDefinition {
  return definition as unknown as EventDefinition;
}
