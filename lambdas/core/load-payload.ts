// The exact bytes a queue message stands for: inline in the envelope, or behind its `dataref` in the
// payload bucket. Shared by the processor and the forwarder. Pure orchestration over the ports.
import type { Envelope } from './envelope';
import { PermanentError } from './events/handler-errors';
import { payloadNeedsRefresh } from './payload-lifetime';
import type { Clock, PayloadReader } from './ports';
import { sha256Hex } from './schemes/primitives';

/**
 * Throws PermanentError(`payload_mismatch`) if the bytes are not the ones the envelope's hash names, and
 * PayloadMissingError, InvalidPayloadRefError or DependencyError from the store.
 */
export async function loadPayload(
  deps: { payloads: PayloadReader; clock: Clock },
  envelope: Envelope,
): Promise<Buffer> {
  if (envelope.data_base64 !== undefined) {
    const body = Buffer.from(envelope.data_base64, 'base64');
    if (sha256Hex(body) !== envelope.payloadsha256) throw new PermanentError('payload_mismatch');
    return body;
  }
  const ref = envelope.dataref as string;
  const stored = await deps.payloads.get(ref);
  if (sha256Hex(stored.body) !== envelope.payloadsha256) throw new PermanentError('payload_mismatch');
  // A redrive enqueues the message anew with a fresh retention clock; the object's lifecycle clock must
  // not run out first. A failed rewrite is transient: the next receive rewrites again.
  if (payloadNeedsRefresh(stored.lastModifiedMs, deps.clock.now())) {
    await deps.payloads.rewrite(ref, stored.body, envelope.payloadsha256);
  }
  return stored.body;
}
