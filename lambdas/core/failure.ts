// What a failure means for a queued delivery, the processor's and the forwarder's alike: permanent (give it
// up at once) or transient (retry on the schedule), and the short code that names it. Pure.
import { DependencyError, InvalidPayloadRefError, PayloadMissingError, SchemaMismatchError } from './errors';
import { PermanentError } from './events/handler-errors';
import { dependencyReason } from './reasons';

export interface Failure {
  permanent: boolean;
  code: string;
  /** What exactly failed, where the code alone cannot say (schema_mismatch's fields); never a value. */
  detail?: string;
}

/** Error codes are short identifiers for logs and metrics, never an error message that could quote data. */
export function classifyFailure(error: unknown): Failure {
  if (error instanceof SchemaMismatchError)
    return { permanent: true, code: error.code, detail: error.detail };
  if (error instanceof PermanentError) return { permanent: true, code: error.code };
  if (error instanceof PayloadMissingError) return { permanent: true, code: 'payload_missing' };
  if (error instanceof InvalidPayloadRefError) return { permanent: true, code: 'payload_ref_invalid' };
  if (error instanceof DependencyError) return { permanent: false, code: dependencyReason(error.dependency) };
  const name = error instanceof Error ? error.name : typeof error;
  const code = (error as { code?: unknown })?.code;
  return {
    permanent: false,
    code: typeof code === 'string' && /^[\w.-]{1,64}$/.test(code) ? code : name || 'error',
  };
}
