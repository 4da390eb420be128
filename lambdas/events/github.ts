// GitHub events. Add a type: one more entry below. Payload docs:
// https://docs.github.com/webhooks/webhook-events-and-payloads
//
// The log lines name ids and types only: commit messages, titles, branch, repository and user
// names are the sender's text and may carry personal data, so they stay out of the logs.
import * as z from 'zod';
import { defineEvent } from './define-event';

const repository = z.object({ full_name: z.string() });

export const githubEvents = [
  defineEvent({
    provider: 'github',
    type: 'ping',
    schema: z.object({ zen: z.string(), hook_id: z.number().optional() }),
    handle: (data, ctx) => ctx.log(`github ping: hook ${data.hook_id ?? '-'}`),
  }),
  defineEvent({
    provider: 'github',
    type: 'push',
    schema: z.object({
      ref: z.string(),
      after: z.string(),
      repository,
      commits: z.array(z.object({ id: z.string(), message: z.string() })).default([]),
      pusher: z.object({ name: z.string() }).optional(),
    }),
    handle: (data, ctx) => ctx.log(`github push: ${data.after.slice(0, 12)}`),
  }),
  defineEvent({
    provider: 'github',
    type: 'pull_request',
    schema: z.object({
      action: z.string(),
      number: z.number(),
      pull_request: z.object({ title: z.string(), state: z.string(), merged: z.boolean().nullish() }),
      repository,
    }),
    handle: (data, ctx) => ctx.log(`github pull_request ${data.action}: #${data.number}`),
  }),
];
