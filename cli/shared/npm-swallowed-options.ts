// `npm start --forward-to URL` (no `--`) hands the option to npm, not to the inbox: npm keeps the flag as
// its own config (npm_config_forward_to=true in the script's environment) and passes the value on as a
// bare argument. Said in one line, with the command that works, instead of starting without the option.

/** The dev options npm takes for its own config when they come before `--`. */
const DEV_OPTIONS = ['forward-to', 'port', 'data-dir'] as const;

/** The one-line message for options npm swallowed, or undefined when there are none. */
export function npmSwallowedOptions(
  env: Readonly<Record<string, string | undefined>>,
  strayArguments: readonly string[],
): string | undefined {
  if (env.npm_lifecycle_event === undefined) return undefined;
  const taken = DEV_OPTIONS.filter((name) => env[`npm_config_${name.replaceAll('-', '_')}`] !== undefined);
  if (taken.length === 0) return undefined;
  const value = strayArguments[0] === undefined ? '' : ` ${strayArguments[0]}`;
  const first = taken[0] as string;
  return (
    `npm took --${taken.join(', --')} for itself: put -- before the inbox's options, ` +
    `as in \`npm start -- --${first}${taken.length === 1 ? value : ' ...'}\``
  );
}
