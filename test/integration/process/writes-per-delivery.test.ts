// What one delivery costs in DynamoDB writes, counted at the SDK client as verify and the processor run:
// the claim, the processing lease and the processed mark, three in all (the cost model prices these).
import { beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { standardWebhooks } from '../../../lambdas/core/schemes/standard-webhooks';
import { sqsRecordFrom } from '../../../local/sqs-event-source';
import { useEmulators } from '../../support/emulators';
import { deliverSigned, effectCounter, processHandlerFor } from '../../support/pipeline';

const config = parseConfig({ providers: { 'standard-webhooks': { scheme: 'standard-webhooks' } } });
const ctx = useEmulators({ config, strictSqs: true });
const SECRET = standardWebhooks.generateSecret();
const WRITES = new Set(['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand', 'BatchWriteItemCommand']);

let resources: typeof ctx.resources;
let writes: string[];
beforeEach(async () => {
  resources = await ctx.provision();
  writes = [];
  const name = 'count-writes';
  ctx.clients.dynamodb.middlewareStack.add(
    (next, context) => async (args) => {
      if (WRITES.has(String(context.commandName))) writes.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize', name },
  );
  return () => ctx.clients.dynamodb.middlewareStack.remove(name);
});

describe('writes per delivery', () => {
  it('are three: the claim (verify), then the lease and the processed mark (processor)', async () => {
    const response = await deliverSigned(ctx, resources, {
      config,
      provider: 'standard-webhooks',
      secret: SECRET,
      body: '{"type":"invoice.paid","data":{}}',
      id: 'msg_1',
    });
    expect(response.statusCode).toBe(202);
    expect(writes).toEqual(['PutItemCommand']);
    const { runs, handlers } = effectCounter('standard-webhooks');
    const processor = processHandlerFor(ctx, resources, handlers);
    const messages = await ctx.receiveAll(resources.queueUrl);
    const batch = await processor.handler({
      Records: messages.map((m) => sqsRecordFrom(m, resources.queueArn)),
    });
    expect(batch.batchItemFailures).toEqual([]);
    expect(runs).toEqual(['msg_1']);
    expect(writes).toEqual(['PutItemCommand', 'UpdateItemCommand', 'UpdateItemCommand']);
  });
});
