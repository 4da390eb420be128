// Every command's --help as commander prints it: each option names its default once, in the words the
// README uses, and no line of a description is cut where commander wraps it.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../cli/program';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap((sub) => allCommands(sub as Command))];
}

const commands = allCommands(buildProgram());

describe('--help', () => {
  it.each(commands.map((c) => [c.name(), c] as const))('%s: names each default once', (_name, command) => {
    const help = command.createHelp();
    const twice = command.options
      .map((option) => help.optionDescription(option))
      .filter((text) => (text.match(/\(default: /g) ?? []).length > 1);
    expect(twice).toEqual([]);
  });

  it('send: the wait timeout defaults to 60s, said as written', () => {
    const send = commands.find((c) => c.name() === 'send') as Command;
    expect(send.helpInformation()).toMatch(
      /--wait-timeout <duration>\s+how long to wait for the outcome \(default: 60s\)/,
    );
  });
});
