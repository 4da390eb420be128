// The registering commands' one error family. Each error carries a reason code and one line for the
// operator; none carries the credential, a secret, or a provider's response body (which may echo either).

export type RegistrationReason =
  /** The provider refused the credential itself (401): revoked, mistyped, another account's. */
  | 'refused_credential'
  /** The credential is good but lacks the permission the call needs (403, or GitHub's 404 for a hidden repo). */
  | 'missing_scope'
  /** A Stripe key of the other mode (test vs live) than the one asked for. */
  | 'wrong_mode'
  /** The repository, organisation or endpoint named does not exist for this credential. */
  | 'not_found'
  /** The provider refused the request as invalid (400/422): an unknown event name, a URL it will not call. */
  | 'rejected_request'
  /** The provider did not answer usefully (5xx, timeout, network): nothing was decided, try again. */
  | 'provider_unavailable'
  /** The provider answered something this command does not understand. */
  | 'unexpected_answer';

export class RegistrationError extends Error {
  override name = 'RegistrationError';
  constructor(
    readonly reason: RegistrationReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
