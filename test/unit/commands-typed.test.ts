// A run's options are typed from its command's definition: `npm run typecheck` fails on a
// flag the definition does not declare (the @ts-expect-error lines below fail it if the
// typing ever goes loose), and commander hands the run exactly those values.

import { describe, expect, it } from 'vitest';
import { command, type OptionsOf } from '../../src/commands/define.js';
import { addGlobalOptions, type GlobalFlags } from '../../src/global-options.js';

function definition() {
  return command('things').option('--limit <n>', 'stop after N').option('--all', 'every page');
}

describe('typed options', () => {
  it('a run reads the flags its definition declares, and no misspelt one', () => {
    const cmd = definition();
    cmd.parse(['--limit', '5', '--all'], { from: 'user' });
    const opts: OptionsOf<typeof definition> = cmd.opts();
    expect(opts).toEqual({ limit: '5', all: true });
    // @ts-expect-error: the definition has --limit, not --limt
    expect(opts.limt).toBeUndefined();
  });

  it('the global options are typed from their definitions too, and commander hands a run those values', () => {
    const program = addGlobalOptions(command('hostctl'));
    program.parse(['-o', 'json', '--no-wait', '--max-wait', '5', '-R'], { from: 'user' });
    const opts: GlobalFlags = program.opts();
    expect(opts).toEqual({ output: 'json', wait: false, maxWait: '5', rateLimit: true, color: true });
  });

  it('refuses, at type-check time, a format the choices do not list and a misspelt global flag', () => {
    // Checked by `npm run typecheck` (the @ts-expect-error lines fail it if the typing goes
    // loose); at run time these are only objects, so the test asserts nothing more here.
    // @ts-expect-error: -o takes only the formats its choices list
    const bad: GlobalFlags = { output: 'xml' };
    // @ts-expect-error: there is no --verbos
    const typo: GlobalFlags = { verbos: true };
    void [bad, typo];
  });
});
