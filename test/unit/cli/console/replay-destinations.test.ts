// Where the console says a replay goes: the destinations whose filter matches the delivery's provider and
// event type, with a local instance's --forward-to destinations among them when the target's config is read.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { replayDestinations } from '../../../../cli/console/replay-destinations';
import type { Config, ResolvedDestination } from '../../../../config';
import { loadProjectConfig } from '../../../../config/load';
import { withForwardTo } from '../../../../local/forward-to';

const destination = (id: string, filter: ResolvedDestination['filter']) =>
  ({ id, type: 'handlers', filter }) as ResolvedDestination;

describe('replay destinations', () => {
  it('names the destinations whose provider and event-type filters match, in the config order', () => {
    const config: Pick<Config, 'destinations'> = {
      destinations: {
        handlers: destination('handlers', {}),
        billing: destination('billing', { providers: ['stripe'], eventTypes: ['invoice.*'] }),
        audit: destination('audit', { eventTypes: ['*'] }),
      },
    };
    expect(replayDestinations(config, { provider: 'stripe', eventType: 'invoice.paid' })).toEqual([
      'handlers',
      'billing',
      'audit',
    ]);
    expect(replayDestinations(config, { provider: 'github', eventType: 'invoice.paid' })).toEqual([
      'handlers',
      'audit',
    ]);
  });

  it("includes a local instance's --forward-to destination", () => {
    const config = withForwardTo(loadProjectConfig(fileURLToPath(new URL('../../../../', import.meta.url))), [
      'http://localhost:4000/webhooks',
    ]);
    expect(replayDestinations(config, { provider: 'github', eventType: 'push' })).toContain('forward-to-1');
  });
});
