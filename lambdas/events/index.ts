// Every registered handler. Add a provider's file here; add an event type in that provider's file.
import type { EventDefinition } from './define-event';
import { demoEvents } from './demo';
import { githubEvents } from './github';
import { standardWebhooksEvents } from './standard-webhooks';
import { stripeEvents } from './stripe';

export const EVENT_HANDLERS: readonly EventDefinition[] = [
  ...githubEvents,
  ...stripeEvents,
  ...standardWebhooksEvents,
  ...demoEvents,
];

export type { EventContext, EventDefinition } from './define-event';
export { defineEvent } from './define-event';
export { PermanentError } from './errors';
