// Square signs the notification URL together with the body, so the inbox must check the signature against
// the exact URL registered. The inbox takes it from providers.<id>.options.notificationUrl, else from the
// URL it was called at (a stack's endpoint). The configuration is cdk.json, which this command does not
// rewrite: it says what to set instead.
import type { ResolvedProvider } from '../../../config';

/** Why `url` cannot be registered with Square for this provider, or undefined when the inbox would verify it. */
export function squareUrlRefusal(
  provider: ResolvedProvider,
  url: string,
  endpointUrl: string,
): string | undefined {
  if (provider.scheme !== 'square') return undefined;
  const options = provider.options as { notificationUrl?: string } | undefined;
  const configured = options?.notificationUrl;
  if (configured === url || (configured === undefined && url === endpointUrl)) return undefined;
  return `Square signs the URL it posts to: set providers.${provider.id}.options.notificationUrl to "${url}" in cdk.json (it is ${configured === undefined ? 'unset' : `"${configured}"`}), deploy or restart, then register again`;
}
