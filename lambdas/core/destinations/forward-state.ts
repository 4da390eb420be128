// A delivery's history at one destination, kept on its inbox record so it can be read back per delivery:
// attempts, the last answer, when the next attempt comes, and where it ended. Pure.

export const FORWARD_STATES = ['pending', 'retrying', 'delivered', 'dead-lettered', 'waiting'] as const;
export type ForwardStateName = (typeof FORWARD_STATES)[number];

export interface ForwardState {
  destination: string;
  state: ForwardStateName;
  /** Attempts made, across receives and redrives: the next attempt's number is this plus one. */
  attempts: number;
  /** The `webhook-id` every attempt carried. */
  webhookId: string;
  lastStatus?: number;
  /** `http_503`, `connect_timeout`, `blocked_address`, ... (never a message that could quote data). */
  lastErrorCode?: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  deliveredAt?: string;
  /** The message a give-up left to the redrive policy: its later receives drain without sending. */
  deadLetterMessageId?: string;
  /**
   * While retrying: the message a second copy, held on its message's last receive, was sent anew as. That
   * message carries on the schedule where it was: its receives count on top of `receivesBefore`.
   */
  requeuedAs?: string;
  receivesBefore?: number;
}

/** The record attribute that holds one destination's history. */
export function forwardAttribute(destinationId: string): string {
  return `forward:${destinationId}`;
}

export const FORWARD_ATTRIBUTE_PREFIX = 'forward:';

/** The inbox item key of a destination's state (enabled or disabled) and of its hourly counts. */
export function destinationKey(destinationId: string): string {
  return `destination#${destinationId}`;
}

export function destinationCountKey(destinationId: string, hourStartMs: number): string {
  return `destination#${destinationId}#${new Date(hourStartMs).toISOString().slice(0, 13)}`;
}

export const HOUR_MS = 3_600_000;

/** The key of a destination's signing secret in local mode's secrets file (beside the providers'). */
export function localDestinationSecretKey(destinationId: string): string {
  return `destination:${destinationId}`;
}

/**
 * The histories on a record as the inbox adapter reads it (each `forward:<id>` attribute is the state's
 * JSON), in destination-id order. Unreadable ones are left out.
 */
export function forwardStatesOf(record: object): ForwardState[] {
  const states: ForwardState[] = [];
  for (const [name, value] of Object.entries(record)) {
    if (!name.startsWith(FORWARD_ATTRIBUTE_PREFIX) || typeof value !== 'string') continue;
    const state = parseForwardState(value);
    if (state) states.push(state);
  }
  return states.sort((a, b) => (a.destination < b.destination ? -1 : a.destination > b.destination ? 1 : 0));
}

/**
 * The state's JSON as stored. The state is the first key, so a condition can tell a delivered history by
 * its prefix; and a history read back and written out again is the same text, so a compare-and-set can
 * name the history it read.
 */
export function serializeForwardState(state: ForwardState): string {
  const { state: name, ...rest } = state;
  return JSON.stringify({ state: name, ...rest });
}

export function parseForwardState(text: string): ForwardState | undefined {
  try {
    const value = JSON.parse(text) as Partial<ForwardState>;
    if (typeof value?.destination !== 'string' || typeof value.attempts !== 'number') return undefined;
    if (!FORWARD_STATES.includes(value.state as ForwardStateName)) return undefined;
    return value as ForwardState;
  } catch {
    return undefined;
  }
}
