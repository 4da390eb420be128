// One line from standard input, for a credential (`--token-stdin`) or a secret a provider shows only in its
// dashboard (`secrets set`). Piped: the first line, trimmed. A terminal: typed without echo, so the value
// lands neither in shell history nor on the screen.
import type { Readable, Writable } from 'node:stream';

export interface LineInput {
  stdin: Readable & { isTTY?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** Where the prompt goes (stderr: stdout may be --json). */
  prompt: Writable;
}

export async function readOneLine(io: LineInput, prompt: string): Promise<string> {
  if (io.stdin.isTTY && io.stdin.setRawMode) return readHidden(io, prompt);
  let text = '';
  for await (const chunk of io.stdin) {
    text += typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
    if (text.includes('\n')) break;
  }
  return (text.split(/\r?\n/)[0] ?? '').trim();
}

function readHidden(io: LineInput, prompt: string): Promise<string> {
  const { stdin } = io;
  io.prompt.write(prompt);
  stdin.setRawMode?.(true);
  stdin.resume();
  return new Promise((resolve, reject) => {
    let text = '';
    const finish = (error?: Error) => {
      stdin.off('data', onData);
      stdin.setRawMode?.(false);
      stdin.pause();
      io.prompt.write('\n');
      if (error) reject(error);
      else resolve(text.trim());
    };
    const onData = (chunk: Buffer | string) => {
      for (const char of chunk.toString()) {
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new Error('cancelled'));
        if (char === '\u007f' || char === '\b') text = text.slice(0, -1);
        else text += char;
      }
    };
    stdin.on('data', onData);
  });
}
