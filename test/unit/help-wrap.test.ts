// The help's own wrapping (src/help/wrap.ts): words whole, commands that still run.

import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { wrapCommand, wrapText, wrapWords } from '../../src/help/wrap.js';

describe('help wrapping', () => {
  it('breaks prose at spaces, never inside a word', () => {
    expect(wrapWords('one two three four', 9)).toEqual(['one two', 'three', 'four']);
    expect(wrapWords('averyveryverylongword x', 5)).toEqual(['averyveryverylongword', 'x']);
  });

  it('breaks a command between words outside quotes, with continuations, and keeps a comment whole', () => {
    const command = `hostctl apps list --all --jq '.[] | select(.status == "failed") | .name'   # only the failed ones, by name`;
    const lines = wrapCommand(command, 30);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines).toContain(`'.[] | select(.status == "failed") | .name' \\`);
    expect(lines.at(-1)).toBe('# only the failed ones, by name');
    for (const line of lines.slice(0, -1)) expect(line.endsWith(' \\')).toBe(true);
    // bash reads the wrapped lines as the one command.
    const words = (text: string) => spawnSync('bash', ['-c', `printf '%s\\n' ${text.replace(/#.*/s, '')}`], { encoding: 'utf8' }).stdout;
    expect(words(lines.join('\n'))).toBe(words(command));
  });

  it('fits a topic: items hang under their description column, short blocks stay as written', () => {
    const text = ['Title', '', '  -o table    aligned columns, cut to the terminal, times as "3 days ago", colour.', '              The default.', '  short       fits', '', '  $ hostctl apps list --all --json | jq -r .'].join('\n');
    const out = wrapText(text, 50).split('\n');
    for (const line of out) expect(line.length).toBeLessThanOrEqual(50);
    expect(out).toContain('  short       fits');
    expect(out.filter((l) => l.startsWith('              ')).length).toBeGreaterThanOrEqual(2);
    expect(out.join(' ').replace(/\s+/g, ' ')).toContain('times as "3 days ago", colour. The default.');
    expect(wrapText(text, 200)).toBe(text);
  });
});
