// A redrive of some dead letters (the console's group and selection): only the chosen messages go back to
// the main queue, and their records are marked; the others stay in the DLQ, visible at once to the next
// reader rather than hidden for the hold. Against dynalite and fauxqs, with the real processor.
import { beforeEach, describe, expect, it } from 'vitest';
import type { Opened } from '../../../../cli/operations/redrive-dlq';
import { redriveSelected } from '../../../../cli/operations/redrive-selected';
import type { Target } from '../../../../cli/shared/target-types';
import { parseConfig } from '../../../../config';
import { DynamoInbox } from '../../../../lambdas/adapters/dynamo-inbox';
import { standardWebhooks } from '../../../../lambdas/core/schemes/standard-webhooks';
import { PermanentError } from '../../../../lambdas/events';
import { useEmulators } from '../../../support/emulators';
import { deliverSigned, processAllWith } from '../../../support/pipeline';

const config = parseConfig({
  providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } },
  queue: { retrySchedule: [1, 1] },
});
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();
const IDS = ['msg_sel_a', 'msg_sel_b', 'msg_sel_c'];
const pk = (id: string) => `standard-webhooks#${id}`;

let resources: typeof ctx.resources;
let failing: boolean;
const inbox = () => new DynamoInbox(ctx.clients.dynamodb, resources.tableName);

const processAll = () =>
  processAllWith(
    ctx,
    resources,
    'standard-webhooks',
    () => {
      if (failing) throw new PermanentError('downstream_rejected');
    },
    config,
  );

function opened(): Opened {
  const target = { kind: 'local', description: 'emulators', ...resources } as unknown as Target;
  return { target, ops: ctx.queueOps, inbox: inbox() };
}

beforeEach(async () => {
  resources = await ctx.provision();
  failing = true;
  for (const id of IDS) {
    const answer = await deliverSigned(ctx, resources, {
      config,
      provider: 'standard-webhooks',
      secret: SECRET,
      body: `{"type":"order.paid","timestamp":"2026-12-01T09:00:00Z","data":{"id":"${id}"}}`,
      id,
    });
    expect(answer.statusCode).toBe(202);
  }
  await processAll();
  expect((await ctx.countMessages(resources.dlqUrl)).visible).toBe(3);
});

describe('redriveSelected', () => {
  it('moves only the chosen dead letters, marks their records, and leaves the others visible in the DLQ', async () => {
    const chosen = new Set([pk('msg_sel_a'), pk('msg_sel_c')]);
    const progress: number[] = [];
    const result = await redriveSelected(opened(), {
      matches: (entry) => chosen.has(`${entry.provider}#${entry.dedupKey}`),
      expected: chosen.size,
      onProgress: (moved) => progress.push(moved),
    });
    expect(result.moved).toBe(2);
    expect(progress.at(-1)).toBe(2);
    const dlq = await ctx.countMessages(resources.dlqUrl);
    // Released with visibility 0, not left hidden for the hold.
    expect(dlq).toMatchObject({ visible: 1, inFlight: 0 });
    expect((await ctx.countMessages(resources.queueUrl)).visible).toBe(2);

    const [a, b, c] = await Promise.all(IDS.map((id) => inbox().get(pk(id))));
    expect(a).toMatchObject({ status: 'enqueued', redrivenAt: expect.any(String) });
    expect(c).toMatchObject({ status: 'enqueued', redrivenAt: expect.any(String) });
    expect(b?.status).toBe('dead-lettered');
    expect(b?.redrivenAt).toBeUndefined();

    failing = false;
    await processAll();
    const after = await Promise.all(IDS.map(async (id) => (await inbox().get(pk(id)))?.status));
    expect(after).toEqual(['processed', 'dead-lettered', 'processed']);
  });

  it('moves nothing when nothing matches, and the DLQ is left as it was', async () => {
    const result = await redriveSelected(opened(), { matches: () => false });
    expect(result).toEqual({ moved: 0, deliveries: 0, left: 3 });
    expect(await ctx.countMessages(resources.dlqUrl)).toMatchObject({ visible: 3, inFlight: 0 });
  });
});
