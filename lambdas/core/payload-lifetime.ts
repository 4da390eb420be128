// How long a large body (kept in S3 because it is over the inline limit) must live. The bucket's lifecycle
// rule deletes objects a fixed number of days after they were last written; the processor rewrites an
// object it reads once it is older than PAYLOAD_REFRESH_AGE_MS. config/resources.ts sets the lifecycle
// from the same numbers, so a body always outlives every message that points at it (see payloadExpiryDays).

/** An object older than this is rewritten by the processor when it reads it. */
export const PAYLOAD_REFRESH_AGE_MS = 86_400_000;

/** Whether the object read at `nowMs`, last written at `lastModifiedMs`, should be written again. */
export function payloadNeedsRefresh(lastModifiedMs: number | undefined, nowMs: number): boolean {
  // An object store that does not say when the object was written: rewrite, to be safe.
  if (lastModifiedMs === undefined || !Number.isFinite(lastModifiedMs)) return true;
  return nowMs - lastModifiedMs > PAYLOAD_REFRESH_AGE_MS;
}
