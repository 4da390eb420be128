// Long operations the console starts (a redrive) and the page follows by polling /api/jobs/<id>. Kept in
// memory: a job belongs to this console's launch, like its token.
import { randomUUID } from 'node:crypto';

export interface JobView {
  id: string;
  kind: string;
  state: 'running' | 'done' | 'failed';
  /** What has been done and how much is expected, for a progress bar. */
  done: number;
  total?: number;
  /** One line for the page: the summary when done, the error when failed. */
  message?: string;
}

export type Progress = (done: number, total?: number) => void;

/** Finished jobs are forgotten after this many newer ones. */
const KEEP = 50;

export class Jobs {
  private readonly jobs = new Map<string, JobView>();

  start(kind: string, run: (progress: Progress) => Promise<string>): JobView {
    const job: JobView = { id: randomUUID(), kind, state: 'running', done: 0 };
    this.jobs.set(job.id, job);
    for (const id of [...this.jobs.keys()].slice(0, Math.max(0, this.jobs.size - KEEP))) this.jobs.delete(id);
    run((done, total) => {
      job.done = done;
      if (total !== undefined) job.total = total;
    }).then(
      (message) => {
        job.state = 'done';
        job.message = message;
      },
      (error: unknown) => {
        job.state = 'failed';
        job.message = error instanceof Error ? error.message : String(error);
      },
    );
    return { ...job };
  }

  get(id: string): JobView | undefined {
    const job = this.jobs.get(id);
    return job ? { ...job } : undefined;
  }
}
