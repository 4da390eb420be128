// Whether the process a pid file names still runs: the CLI's check on local.json and the instance lock's
// test for a stale lock.

/** Whether a process is alive; EPERM means it is, under another user. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
