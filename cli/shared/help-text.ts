// Text after a command's --help, laid out at the width commander lays out its own columns (the terminal's,
// 80 when output is not a terminal). Written unwrapped: a paragraph is one source line and is wrapped here
// between words, so a narrow terminal never cuts a word or a sentence where the source happened to break.
import type { Command, Help } from 'commander';

/** A two-column list (checks, items) under a heading, wrapped like commander's own options. */
export interface HelpList {
  heading: string;
  items: ReadonlyArray<readonly [term: string, description: string]>;
}

/**
 * A paragraph, an example command line (`$ ...`, kept whole or continued with `\`), an empty string for
 * a blank line, or a list.
 */
export type HelpBlock = string | HelpList;

const INDENT = '  ';
/** Lines of an example beyond the first, under the command after `$ `. */
const CONTINUED = '      ';

/** Adds `blocks` after the command's help. */
export function addHelpAfter(command: Command, blocks: readonly HelpBlock[]): void {
  command.addHelpText('after', (context) => {
    const output = context.command.configureOutput();
    const width = (context.error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.()) ?? 80;
    return `\n${renderHelpBlocks(blocks, width, context.command.createHelp())}`;
  });
}

export function renderHelpBlocks(blocks: readonly HelpBlock[], width: number, help: Help): string {
  help.prepareContext({ helpWidth: width });
  return blocks
    .map((block) => {
      if (typeof block !== 'string') return list(block, help);
      if (block.startsWith('$ ')) return example(block, width);
      return help.boxWrap(block, width);
    })
    .join('\n');
}

function list(block: HelpList, help: Help): string {
  const termWidth = Math.max(...block.items.map(([term]) => term.length));
  return [
    help.boxWrap(block.heading, help.helpWidth ?? 80),
    ...block.items.map(([term, text]) => help.formatItem(term, termWidth, text, help)),
  ].join('\n');
}

/** A command line too long for the width goes on over lines ending in ` \`, as a shell reads it. */
function example(line: string, width: number): string {
  const words = line.split(' ');
  const lines: string[] = [];
  let current = INDENT + (words.shift() as string);
  for (const word of words) {
    if (current.length + 1 + word.length + 2 <= width || current.trim() === '$') {
      current += ` ${word}`;
    } else {
      lines.push(`${current} \\`);
      current = CONTINUED + word;
    }
  }
  lines.push(current);
  return lines.join('\n');
}
