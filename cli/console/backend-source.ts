// Where each console request finds the inbox. A stack stays where it is, but a local instance does not:
// `npm start` stopped and started again is a new instance on new ports, and a console that kept the old
// clients would answer every page with a refused connection. So for a local target each request re-reads
// the instance record (`.webhook-inbox/local.json`, a small file) and, when the record changed, builds the
// backend again from the whole record; with no live instance it says so in one line.
import type { Config } from '../../config';
import type { LocalState } from '../../local/state-file';
import { describeError } from '../shared/output';
import type { Target } from '../shared/target-types';
import type { ConsoleBackend } from './server';

/** The inbox behind the console cannot be reached now; the message says why and what to do, on one line. */
export class UnavailableError extends Error {
  override name = 'UnavailableError';
}

export interface BackendSource {
  /**
   * The backend for this request. `refused`: a call of the backend last handed out had its connection
   * refused, so the instance it points at is gone even if its record is still there.
   */
  current(refused?: boolean): Promise<ConsoleBackend>;
  /** The target last found, for the page header when none is found now. */
  readonly description: string;
  close(): void;
}

/** Node's code for a port nobody listens on, anywhere in the error's causes (adapters wrap SDK errors). */
export function isConnectionRefused(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current instanceof Error && depth < 6; depth++) {
    if ((current as { code?: unknown }).code === 'ECONNREFUSED') return true;
    if (current instanceof AggregateError && current.errors.some(isConnectionRefused)) return true;
    current = current.cause;
  }
  return false;
}

export interface LocalBackendSourceOptions {
  cwd: string;
  config: Config;
  /** The console's backend over a target (run.ts). */
  build(target: Target): Promise<ConsoleBackend>;
  /** The running instance's record; undefined when there is none. Throws for an unreadable one. */
  readState(cwd: string): LocalState | undefined;
  isAlive(pid: number): boolean;
  /** The local target, built from the record as every `--local` command builds it (target.ts). */
  openTarget(cwd: string, config: Config): Promise<Target>;
  /** The target the console started with, already opened, so the first request does not open another. */
  first?: Target;
}

interface Connection {
  /** The record it was built from, whole: any change (ports, credentials, pid) means another instance. */
  record: string;
  opened: Promise<{ target: Target; backend: ConsoleBackend }>;
}

const START_HINT = 'start one with `npm start` in the project folder, then reload this page';

export class LocalBackendSource implements BackendSource {
  private connection: Connection | undefined;
  description: string;

  constructor(private readonly options: LocalBackendSourceOptions) {
    const { first } = options;
    this.description = first?.description ?? `local instance for ${options.cwd}`;
    if (first !== undefined) {
      let record: string | undefined;
      try {
        record = JSON.stringify(options.readState(options.cwd));
      } catch {
        record = undefined; // the first request reads it again, and says what is wrong
      }
      if (record !== undefined) this.connection = this.connect(record, Promise.resolve(first));
      else first.close();
    }
  }

  async current(refused = false): Promise<ConsoleBackend> {
    const { cwd } = this.options;
    let state: LocalState | undefined;
    try {
      state = this.options.readState(cwd);
    } catch {
      this.gone();
      throw new UnavailableError(`the local instance record in ${cwd} cannot be read: ${START_HINT}`);
    }
    if (state === undefined || !this.options.isAlive(state.pid)) {
      this.gone();
      throw new UnavailableError(`no local inbox is running for ${cwd}: ${START_HINT}`);
    }
    const record = JSON.stringify(state);
    if (this.connection?.record === record && refused) {
      this.gone();
      throw new UnavailableError(
        `the local inbox recorded for ${cwd} (pid ${state.pid}) does not answer: ${START_HINT}`,
      );
    }
    if (this.connection?.record !== record) {
      this.drop();
      // The record can go, or change, between the read above and the target's own read of it.
      const target = this.options.openTarget(cwd, this.options.config).catch((error: unknown) => {
        throw new UnavailableError(`${describeError(error)}: ${START_HINT}`);
      });
      this.connection = this.connect(record, target);
    }
    return (await (this.connection as Connection).opened).backend;
  }

  private connect(record: string, target: Promise<Target>): Connection {
    const opened = target.then(async (opened) => {
      try {
        const backend = await this.options.build(opened);
        this.description = opened.description;
        return { target: opened, backend };
      } catch (error) {
        opened.close();
        throw error;
      }
    });
    // A failed connection is not kept: the next request tries again.
    opened.catch(() => {
      if (this.connection?.opened === opened) this.connection = undefined;
    });
    return { record, opened };
  }

  close(): void {
    this.drop();
  }

  /** No instance to answer: its clients closed, and the pages' header no longer names its address. */
  private gone(): void {
    this.drop();
    this.description = `no local instance running for ${this.options.cwd}`;
  }

  /** Closes the clients of an instance that is gone (or replaced). */
  private drop(): void {
    const gone = this.connection;
    this.connection = undefined;
    gone?.opened.then(
      ({ target }) => target.close(),
      () => undefined,
    );
  }
}
