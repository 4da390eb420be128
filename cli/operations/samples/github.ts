// GitHub: https://docs.github.com/webhooks/webhook-events-and-payloads. No id is signed: the dedup key is
// the body hash, and X-GitHub-Delivery (a UUID) is metadata.
import { DIGITS, HEX, type SampleContext, type SchemeSamples } from './context';

const ZEN = [
  'Keep it logically awesome.',
  'Design for failure.',
  'Anything added dilutes everything else.',
  'Speak like a human.',
  'Approachable is better than simple.',
];

function repository(ctx: SampleContext) {
  return {
    id: Number(`7${ctx.fresh(8, DIGITS)}`),
    node_id: `R_kgDO${ctx.fresh(8)}`,
    name: 'webhook-inbox-demo',
    full_name: 'octo-org/webhook-inbox-demo',
    private: true,
    owner: { login: 'octo-org', id: 6_811_672, type: 'Organization' },
    html_url: 'https://github.com/octo-org/webhook-inbox-demo',
    default_branch: 'main',
  };
}

function sender() {
  return { login: 'octocat', id: 583_231, type: 'User', site_admin: false };
}

export const githubSamples: SchemeSamples = {
  defaultEvent: 'ping',
  deliveryId: (ids) => ids.uuid('delivery'),
  events: {
    ping: (ctx) => {
      const hookId = Number(`4${ctx.fresh(8, DIGITS)}`);
      return {
        body: {
          zen: ctx.pick(ZEN),
          hook_id: hookId,
          hook: {
            type: 'Repository',
            id: hookId,
            name: 'web',
            active: true,
            events: ['push', 'pull_request'],
            config: { content_type: 'json', insecure_ssl: '0', url: ctx.url },
            updated_at: ctx.iso(),
            created_at: ctx.iso(),
          },
          repository: repository(ctx),
          sender: sender(),
        },
      };
    },
    push: (ctx) => {
      const before = ctx.fresh(40, HEX);
      const after = ctx.fresh(40, HEX);
      const commit = {
        id: after,
        tree_id: ctx.fresh(40, HEX),
        distinct: true,
        message: 'Retry webhook deliveries with jittered backoff',
        timestamp: ctx.iso(-30),
        url: `https://github.com/octo-org/webhook-inbox-demo/commit/${after}`,
        author: { name: 'Mona Lisa Octocat', email: 'mona@example.com', username: 'octocat' },
        committer: { name: 'Mona Lisa Octocat', email: 'mona@example.com', username: 'octocat' },
        added: [],
        removed: [],
        modified: ['src/retry.ts'],
      };
      return {
        body: {
          ref: 'refs/heads/main',
          before,
          after,
          repository: repository(ctx),
          pusher: { name: 'octocat', email: 'mona@example.com' },
          sender: sender(),
          created: false,
          deleted: false,
          forced: false,
          base_ref: null,
          compare: `https://github.com/octo-org/webhook-inbox-demo/compare/${before.slice(0, 12)}...${after.slice(0, 12)}`,
          commits: [commit],
          head_commit: commit,
        },
      };
    },
    pull_request: (ctx) => {
      const number = Number(ctx.fresh(3, DIGITS)) + 1;
      return {
        body: {
          action: 'opened',
          number,
          pull_request: {
            id: Number(`1${ctx.fresh(9, DIGITS)}`),
            number,
            state: 'open',
            locked: false,
            title: 'Dead-letter unknown event types when configured',
            user: { login: 'octocat', id: 583_231 },
            body: 'Adds `unknownEvents: "dlq"` per provider.',
            created_at: ctx.iso(),
            updated_at: ctx.iso(),
            merged: false,
            draft: false,
            head: { ref: 'dlq-unknown-events', sha: ctx.fresh(40, HEX) },
            base: { ref: 'main', sha: ctx.fresh(40, HEX) },
            html_url: `https://github.com/octo-org/webhook-inbox-demo/pull/${number}`,
          },
          repository: repository(ctx),
          sender: sender(),
        },
      };
    },
  },
};
