// A process that races for instance locks: for each folder named on a stdin line it tries to take that
// folder's lock and prints `took` or `refused <holder pid>`, keeping what it took until it exits. Loaded
// once and then told when to go, so several contenders try within the same moment.
import { createInterface } from 'node:readline';
import { acquireInstanceLock, InstanceRunningError } from '../../local/instance-lock';

function attempt(folder: string): string {
  try {
    acquireInstanceLock(folder);
    return 'took';
  } catch (error) {
    if (!(error instanceof InstanceRunningError)) throw error;
    return `refused ${error.pid}`;
  }
}

process.stdout.write('ready\n');
createInterface({ input: process.stdin }).on('line', (folder) =>
  process.stdout.write(`${attempt(folder)}\n`),
);
