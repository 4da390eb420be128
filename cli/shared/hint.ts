// How the CLI names its own commands when it tells someone what to run next. `npm ci` puts the
// `webhook-inbox` bin in node_modules/.bin, which is not on the shell's PATH: inside the project `npx`
// runs that copy. Every hint, error and help example says it through here, so the wording cannot drift.

/** The command line that runs this CLI from the project folder. */
export const CLI = 'npx webhook-inbox';

/** `npx webhook-inbox <args>`: a command to run, as a hint prints it. */
export function cliHint(args: string): string {
  return `${CLI} ${args}`;
}
