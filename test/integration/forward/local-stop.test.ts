// Ctrl-C in local mode with destinations: what can be forwarded now is, and a delivery waiting out a
// retry step (the emulator keeps nothing) is named in a warning with its destination.
import { afterAll, describe, expect, it } from 'vitest';
import { startDestinationServer, status } from '../../support/destination-server';
import { startForwardingInbox } from '../../support/forwarding';

const servers: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

describe('local mode stopping with destinations', () => {
  it('forwards what is queued and warns of a forward waiting out its retry', async () => {
    const failing = await startDestinationServer();
    const healthy = await startDestinationServer();
    servers.push(failing, healthy);
    failing.answerAll(status(503));
    const forwarding = await startForwardingInbox({
      destinations: {
        failing: { type: 'http', url: failing.url(), retrySchedule: ['5m'] },
        healthy: { type: 'http', url: healthy.url() },
      },
    });
    expect(await forwarding.deliver('msg_stop_1', '{"type":"order.paid","data":{}}')).toBe(202);
    await expect.poll(() => failing.received.length, { timeout: 20_000 }).toBe(1);
    await forwarding.stop();
    expect(healthy.received).toHaveLength(1);
    const lost = forwarding.lines.filter((l) => l.message === 'forwards lost on exit');
    expect(lost.map((l) => [l.attributes.destination, l.attributes.messages])).toEqual([['failing', 1]]);
  });
});
