// Every command's --help as commander prints it: each option names its default once, in the words the
// README uses; at 80 columns no line is longer than the terminal, and no sentence is broken by a line
// break the source wrote.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../cli/program';
import {
  OPERATOR_SETTLED_STATUSES,
  REPLAY_REFUSALS,
  STRANDABLE_STATUSES,
} from '../../../lambdas/core/replay';

function allCommands(command: Command): Command[] {
  return [command, ...command.commands.flatMap((sub) => allCommands(sub as Command))];
}

const commands = allCommands(buildProgram());

function pathOf(command: Command): string {
  return command.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name();
}

/** `--help` as a user sees it on a terminal `width` columns wide: commander's part and the text after it. */
function helpAt(command: Command, width: number): string {
  let out = '';
  const saved = { ...command.configureOutput() };
  command.configureOutput({
    writeOut: (text) => {
      out += text;
    },
    getOutHelpWidth: () => width,
    getOutHasColors: () => false,
  });
  try {
    command.outputHelp();
  } finally {
    command.configureOutput(saved);
  }
  return out;
}

const byPath = commands.map((c) => [pathOf(c), c] as const);

describe('--help', () => {
  it.each(commands.map((c) => [c.name(), c] as const))('%s: names each default once', (_name, command) => {
    const help = command.createHelp();
    const twice = command.options
      .map((option) => help.optionDescription(option))
      .filter((text) => (text.match(/\(default: /g) ?? []).length > 1);
    expect(twice).toEqual([]);
  });

  it.each(byPath)('%s: fits an 80-column terminal, so the terminal never cuts a word', (_path, command) => {
    const tooWide = helpAt(command, 80)
      .split('\n')
      .filter((line) => line.length > 80);
    expect(tooWide).toEqual([]);
  });

  it.each(byPath)('%s: no sentence broken by a hard line break in its text', (_path, command) => {
    // Wide enough that nothing wraps: a line break left is one the source wrote. Prose starts at the
    // margin (lists and examples are indented); a prose line followed by more prose must end a sentence
    // or introduce what follows.
    const lines = helpAt(command, 1000).split('\n');
    const broken = lines.filter(
      (line, i) => /^\S/.test(line) && /^\S/.test(lines[i + 1] ?? '') && !/[.:?!]$/.test(line),
    );
    expect(broken).toEqual([]);
    const descriptions = [
      command.description(),
      ...command.options.map((option) => option.description),
      ...command.registeredArguments.map((argument) => argument.description),
    ];
    expect(descriptions.filter((text) => /[^.:?!]\n/.test(text))).toEqual([]);
  });

  it('the program names its commands as the project runs them: npx webhook-inbox', () => {
    const help = helpAt(commands[0] as Command, 80);
    expect(help).toContain('npx webhook-inbox send github');
    expect(help).not.toMatch(/(?<!npx )webhook-inbox (send|selftest|deliveries|doctor|endpoints) /);
  });

  it('deliveries replay: states what core/replay.ts replays and refuses', () => {
    const replay = commands.find((c) => pathOf(c) === 'webhook-inbox deliveries replay') as Command;
    const help = helpAt(replay, 1000);
    for (const status of [...OPERATOR_SETTLED_STATUSES, 'processing', ...STRANDABLE_STATUSES])
      expect(help).toContain(status);
    expect(help).toMatch(/stranded/);
    expect(help).toMatch(/lease that ended 15 minutes ago/);
    for (const reason of REPLAY_REFUSALS) expect(help).toContain(reason);
    expect(help).toMatch(/exit 3/);
  });

  it('send: the wait timeout defaults to 60s, said as written', () => {
    const send = commands.find((c) => c.name() === 'send') as Command;
    expect(send.helpInformation()).toMatch(
      /--wait-timeout <duration>\s+how long to wait for the outcome \(default: 60s\)/,
    );
  });
});
