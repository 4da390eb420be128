// Reads the `webhookInbox` context from cdk.json for local mode and the CLI (the CDK app gets the same
// value through `node.tryGetContext`).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type ParseError, type ParseErrorCode, parse, printParseErrorCode } from 'jsonc-parser';
import { CONTEXT_KEY, type Config, ConfigError, parseConfig } from './index';

export function loadProjectConfig(dir = process.cwd()): Config {
  const file = join(dir, 'cdk.json');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let cdkJson: { context?: Record<string, unknown> };
  try {
    cdkJson = JSON.parse(text);
  } catch (error) {
    const place = jsonErrorPlace(text);
    const why = place ? `${place} (not valid JSON)` : `: ${(error as Error).message}`;
    throw new ConfigError(`${file}${why}`);
  }
  return parseConfig(cdkJson.context?.[CONTEXT_KEY]);
}

/**
 * Where strict JSON first goes wrong, as `:line:column: what` (counted from 1, as an editor shows it).
 * JSON.parse's own message names no place on this Node; jsonc-parser's scanner does, told to allow neither
 * comments nor trailing commas, as the CDK's own JSON.parse allows neither.
 */
export function jsonErrorPlace(text: string): string {
  const errors: ParseError[] = [];
  parse(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return '';
  const before = text.slice(0, first.offset);
  const line = before.split('\n').length;
  const column = before.length - before.lastIndexOf('\n');
  return `:${line}:${column}: ${describeParseError(first.error)}`;
}

/** jsonc-parser's error codes in words. */
function describeParseError(code: ParseErrorCode): string {
  const name = printParseErrorCode(code);
  return name.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}

/** Local mode's port: `--port` wins, then PORT, then 3000. */
export function localPort(
  flag: string | undefined,
  env: Record<string, string | undefined> = process.env,
): number {
  const text = flag ?? env.PORT ?? '3000';
  const port = Number(text);
  if (!/^\d{1,5}$/.test(text) || port > 65_535) throw new ConfigError(`port: not a TCP port: ${text}`);
  return port;
}

/**
 * The directory the user ran the command from. `npm start` changes into the package root but keeps the
 * caller's directory in INIT_CWD, so `.webhook-inbox/` and cdk.json are looked up where the user is.
 */
export function projectDir(env: Record<string, string | undefined> = process.env): string {
  return env.INIT_CWD ?? process.cwd();
}
