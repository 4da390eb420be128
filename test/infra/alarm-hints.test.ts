// What an alarm tells the operator to run arrives in an e-mail, far from the project: a bare
// `webhook-inbox <command>` is not on anyone's PATH. Every command an alarm names is the one that runs
// inside the project folder, `npx webhook-inbox ...`, as the CLI's own hints say.
import { describe, expect, it } from 'vitest';
import { resourcesOf, synthStack, withDestinations } from './synth';

describe('alarm descriptions', () => {
  it('name the CLI as npx webhook-inbox, never a bare webhook-inbox command', () => {
    const { template } = synthStack(withDestinations());
    const bare = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map((alarm) => JSON.stringify(alarm.Properties?.AlarmDescription ?? ''))
      .filter((text) =>
        /(?<!npx )webhook-inbox (dlq|destinations|deliveries|secrets|doctor|console)\b/.test(text),
      );
    expect(bare).toEqual([]);
  });
});

describe('alarm descriptions, for the stack that raised them', () => {
  it('name the stack, so the command acts on it and not on a local instance', () => {
    const { template } = synthStack(withDestinations());
    const commands = Object.values(resourcesOf(template, 'AWS::CloudWatch::Alarm'))
      .map((alarm) => JSON.stringify(alarm.Properties?.AlarmDescription ?? ''))
      .filter((text) => text.includes('npx webhook-inbox'));
    expect(commands.length).toBeGreaterThan(0);
    for (const text of commands) expect(text).toMatch(/--stack \S+/);
  });
});
