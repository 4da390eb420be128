// How the console finds the local instance on each request: the record re-read every time, the backend
// rebuilt from the whole record when it changed (a restart), one line when no instance runs, and a refused
// connection taken as "this instance is gone" even while its record stays.
import { describe, expect, it } from 'vitest';
import {
  isConnectionRefused,
  LocalBackendSource,
  UnavailableError,
} from '../../../../cli/console/backend-source';
import type { ConsoleBackend } from '../../../../cli/console/server';
import { CliError } from '../../../../cli/shared/output';
import type { Target } from '../../../../cli/shared/target-types';
import type { Config } from '../../../../config';
import { DependencyError } from '../../../../lambdas/core/errors';
import type { LocalState } from '../../../../local/state-file';

const CWD = '/projects/inbox';

function record(port: number, pid = 4242): LocalState {
  return {
    pid,
    gatewayUrl: `http://127.0.0.1:${port}`,
    region: 'us-east-1',
    endpoints: {
      dynamodb: `http://127.0.0.1:${port + 1}`,
      sqs: `http://127.0.0.1:${port + 2}`,
      s3: `http://127.0.0.1:${port + 2}`,
    },
    secretsFile: `${CWD}/.webhook-inbox/secrets.json`,
    startedAt: `2026-12-02T07:00:0${port % 10}.000Z`,
    tableName: 'inbox',
    queueUrl: 'q',
    queueArn: 'qa',
    dlqUrl: 'd',
    dlqArn: 'da',
    bucketName: 'b',
  } as LocalState;
}

/** A world where the record and the live pids are set by the test; targets and backends are counted. */
function world() {
  const state: { record: LocalState | undefined | Error; alive: Set<number> } = {
    record: record(3000),
    alive: new Set([4242]),
  };
  const opened: { gatewayUrl: string; closed: boolean }[] = [];
  let openFails: Error | undefined;
  const source = new LocalBackendSource({
    cwd: CWD,
    config: {} as Config,
    readState: () => {
      if (state.record instanceof Error) throw state.record;
      return state.record;
    },
    isAlive: (pid) => state.alive.has(pid),
    openTarget: async () => {
      if (openFails) throw openFails;
      const current = state.record as LocalState;
      const entry = { gatewayUrl: current.gatewayUrl, closed: false };
      opened.push(entry);
      return {
        kind: 'local',
        description: `local instance at ${current.gatewayUrl}`,
        close: () => {
          entry.closed = true;
        },
      } as unknown as Target;
    },
    build: async (target) => ({ target }) as unknown as ConsoleBackend,
  });
  return {
    state,
    opened,
    source,
    failOpen: (error: Error | undefined) => {
      openFails = error;
    },
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

async function unavailable(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UnavailableError);
  const message = (error as Error).message;
  expect(message).not.toContain('\n');
  return message;
}

describe('LocalBackendSource', () => {
  it('keeps one backend while the record stays the same', async () => {
    const { source, opened } = world();
    const first = await source.current();
    expect(await source.current()).toBe(first);
    expect(opened).toHaveLength(1);
    expect(source.description).toBe('local instance at http://127.0.0.1:3000');
  });

  it('builds a new backend from the new record after a restart, and closes the old clients', async () => {
    const { source, opened, state } = world();
    const before = await source.current();
    state.record = record(4000);
    const after = await source.current();
    expect(after).not.toBe(before);
    expect(after.target.description).toBe('local instance at http://127.0.0.1:4000');
    await settle();
    expect(opened.map((o) => [o.gatewayUrl, o.closed])).toEqual([
      ['http://127.0.0.1:3000', true],
      ['http://127.0.0.1:4000', false],
    ]);
  });

  it('takes any change of the record as another instance, not only the ports', async () => {
    const { source, opened, state } = world();
    await source.current();
    state.record = { ...record(3000), emulatorCredential: 'new-launch' } as LocalState;
    await source.current();
    expect(opened).toHaveLength(2);
  });

  it('says in one line that no local inbox runs, and how to start one, when the record is gone', async () => {
    const { source, opened, state } = world();
    await source.current();
    state.record = undefined;
    const message = await unavailable(source.current());
    expect(message).toBe(
      `no local inbox is running for ${CWD}: start one with \`npm start\` in the project folder, then reload this page`,
    );
    await settle();
    expect(opened[0]?.closed).toBe(true);
    // The pages' header no longer names the stopped instance's address.
    expect(source.description).toBe(`no local instance running for ${CWD}`);
    // Started again: found without restarting the console.
    state.record = record(5000);
    expect((await source.current()).target.description).toBe('local instance at http://127.0.0.1:5000');
  });

  it('says the same when the recorded process is not alive (a crash left its record)', async () => {
    const { source, state } = world();
    state.alive.clear();
    expect(await unavailable(source.current())).toContain('no local inbox is running');
  });

  it('says so when the record cannot be read', async () => {
    const { source, state } = world();
    state.record = new SyntaxError('Unexpected end of JSON input');
    expect(await unavailable(source.current())).toContain('cannot be read');
  });

  it('after a refused connection with the same record, says the instance does not answer, then tries again', async () => {
    const { source, opened } = world();
    await source.current();
    expect(await unavailable(source.current(true))).toContain('(pid 4242) does not answer');
    await settle();
    expect(opened[0]?.closed).toBe(true);
    await source.current();
    expect(opened).toHaveLength(2);
  });

  it('after a refused connection with a new record, hands out the new instance', async () => {
    const { source, state } = world();
    await source.current();
    state.record = record(6000);
    expect((await source.current(true)).target.description).toBe('local instance at http://127.0.0.1:6000');
  });

  it('answers a target that cannot be opened as unavailable, and opens it on the next request', async () => {
    const { source, opened, failOpen } = world();
    failOpen(new CliError('the local instance recorded in local.json (pid 4242) is not running'));
    expect(await unavailable(source.current())).toContain('is not running');
    failOpen(undefined);
    await source.current();
    expect(opened).toHaveLength(1);
  });

  it('starts from the target the console opened, without opening another', async () => {
    const { state, opened } = world();
    let closed = false;
    const first = { kind: 'local', description: 'first', close: () => (closed = true) } as unknown as Target;
    const seeded = new LocalBackendSource({
      cwd: CWD,
      config: {} as Config,
      readState: () => state.record as LocalState,
      isAlive: () => true,
      openTarget: async () => {
        throw new Error('not expected');
      },
      build: async (target) => ({ target }) as unknown as ConsoleBackend,
      first,
    });
    expect((await seeded.current()).target).toBe(first);
    expect(opened).toHaveLength(0);
    seeded.close();
    await settle();
    expect(closed).toBe(true);
  });
});

describe('isConnectionRefused', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:4566'), { code: 'ECONNREFUSED' });

  it('finds the refusal through the adapters wrapping and in an AggregateError', () => {
    expect(isConnectionRefused(refused)).toBe(true);
    expect(isConnectionRefused(new DependencyError('dynamodb', 'Query', { cause: refused }))).toBe(true);
    expect(isConnectionRefused(new AggregateError([new Error('x'), refused]))).toBe(true);
  });

  it('does not take other failures for one', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    expect(isConnectionRefused(reset)).toBe(false);
    expect(isConnectionRefused(new DependencyError('sqs', 'ReceiveMessage', { cause: reset }))).toBe(false);
    expect(isConnectionRefused('ECONNREFUSED')).toBe(false);
    expect(isConnectionRefused(undefined)).toBe(false);
  });
});
