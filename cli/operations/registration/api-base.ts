// `--api-base` carries the credential to the host it names, in an Authorization header: plain http is
// accepted only to this machine (a test server), where no network sees the header.

const LOOPBACK = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])$/i;

/** Why `apiBase` would send the credential in clear text, or undefined when it is https or loopback. */
export function cleartextApiBaseRefusal(apiBase: string): string | undefined {
  const parsed = new URL(apiBase);
  if (parsed.protocol === 'https:' || LOOPBACK.test(parsed.hostname)) return undefined;
  return `--api-base ${apiBase} must be https: over plain http the credential would cross the network in clear text`;
}
