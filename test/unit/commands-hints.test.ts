// A flag's or an argument's completion is written on its definition: the engine reads the
// hint off the spec the build bakes in, with no case of its own for the flag.

import { Argument, Option } from '@commander-js/extra-typings';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli.js';
import { complete, completionSpec, linkSpec, type CommandSpec } from '../../src/commands/complete.js';
import { command } from '../../src/commands/define.js';
import { completes } from '../../src/commands/hints.js';

const values = (r: ReturnType<typeof complete>) => (r === 'files' ? r : r.map((c) => c.value));

describe('completion hints', () => {
  it('a new flag and argument complete from their definitions alone', () => {
    const program = command('hostctl');
    program.addCommand(
      command('zones')
        .addArgument(completes(new Argument('<zone>'), { values: ['north', 'south'] }))
        .addOption(completes(new Option('--tier <tier>', 'the tier'), { values: ['gold', 'silver'] }))
        .addOption(completes(new Option('--manifest <file>', 'a file'), 'files')),
    );
    const tree = linkSpec(completionSpec(program));
    expect(values(complete(['zones', ''], {}, tree))).toEqual(['north', 'south']);
    expect(values(complete(['zones', '--tier', 's'], {}, tree))).toEqual(['silver']);
    expect(values(complete(['zones', '--tier=g'], {}, tree))).toEqual(['--tier=gold']);
    expect(complete(['zones', '--manifest', ''], {}, tree)).toBe('files');
  });

  it("the program's flags and arguments carry the hints the engine answers", () => {
    const spec = completionSpec(buildProgram());
    const find = (path: string[]): CommandSpec => path.reduce((c, name) => c.commands.find((s) => s.name === name)!, spec);
    const option = (path: string[], long: string) => [...find(path).options, ...spec.options].find((o) => o.long === long);
    expect(option([], '--profile')?.complete).toBe('profiles');
    expect(option([], '--fields')?.complete).toBe('fields');
    expect(option(['deployments', 'list'], '--environment')?.complete).toEqual({ ids: 'environments' });
    expect(option(['deployments', 'list'], '--app')?.complete).toEqual({ ids: 'apps' });
    expect(option(['apps', 'wait'], '--for')?.complete).toEqual({ conditions: 'apps' });
    expect(option(['api'], '--input')?.complete).toBe('files');
    expect(find(['apps', 'get']).arguments).toEqual([{ variadic: true, complete: { ids: 'apps' } }]);
    expect(find(['config', 'set']).arguments.map((a) => a.complete)).toEqual(['settable-config-keys', 'config-value']);
    expect(find(['completion']).arguments[0]?.complete).toEqual({ values: ['bash', 'zsh', 'fish'] });
  });
});
