// The progress bar of the long-running commands (`dlq redrive`, `deliveries replay`), on a terminal only.
import type * as CliProgress from 'cli-progress';

export interface Progress {
  /** Starts the bar on the first call, with `total` (at least 1), then moves it to `done`. */
  progress(done: number, total: number): void;
  stop(): void;
}

/**
 * The CLI is bundled with esbuild's code splitting, which turns a dynamic import of this CommonJS package
 * into a chunk whose only export is `default` (the module.exports object): named imports would be undefined
 * there while they work under tsx and vitest. Both shapes are read here.
 */
async function loadCliProgress(): Promise<typeof CliProgress> {
  const loaded = (await import('cli-progress')) as typeof CliProgress & { default?: typeof CliProgress };
  return loaded.default?.SingleBar ? loaded.default : loaded;
}

/** `label [=====] 3/10 <unit>` on stderr, or nothing when disabled (--json) or stderr is not a terminal. */
export async function progressBar(
  label: string,
  unit: string,
  enabled: boolean,
  stream: NodeJS.WriteStream = process.stderr,
): Promise<Progress | undefined> {
  if (!enabled || !stream.isTTY) return undefined;
  const { SingleBar, Presets } = await loadCliProgress();
  const bar = new SingleBar(
    { format: `${label} [{bar}] {value}/{total} ${unit}`, hideCursor: true, stream },
    Presets.shades_classic,
  );
  let started = false;
  return {
    progress(done, total) {
      if (!started) bar.start(Math.max(total, 1), 0);
      started = true;
      bar.setTotal(Math.max(total, 1));
      bar.update(done);
    },
    stop() {
      if (started) bar.stop();
      started = false;
    },
  };
}
