// What hostctl accepts as its config file (src/config/config.ts): exactly what it writes,
// and for anything else one sentence naming the file and the key that is wrong, never an
// empty config (a run would go on without the user's profiles, and a write replace them).

import { describe, expect, it } from 'vitest';
import { checkProfileName, isOutputFormat, parseConfig } from '../../src/config/config.js';
import { UsageError } from '../../src/errors.js';

const FILE = '/c/config.json';

function refusal(text: string): UsageError {
  try {
    parseConfig(text, FILE);
  } catch (err) {
    if (err instanceof UsageError) return err;
    throw err;
  }
  throw new Error(`${text} was accepted`);
}

describe('parseConfig', () => {
  it('reads every key hostctl writes', () => {
    const text = JSON.stringify({
      defaultProfile: 'staging',
      accessible: true,
      profiles: { staging: { baseUrl: 'https://api.example.invalid/v1', cache: '10m', storedAt: 'file', redisUrl: 'rediss://r.invalid', output: 'ndjson', storage: 'file' } },
    });
    expect(parseConfig(text, FILE)).toEqual({
      defaultProfile: 'staging',
      accessible: true,
      profiles: { staging: { baseUrl: 'https://api.example.invalid/v1', cache: '10m', storedAt: 'file', redisUrl: 'rediss://r.invalid', output: 'ndjson', storage: 'file' } },
    });
  });

  it('takes accessible as a boolean or as the text config set writes, and nothing else', () => {
    expect(parseConfig('{"accessible":true}', FILE).accessible).toBe(true);
    expect(parseConfig('{"accessible":"true"}', FILE).accessible).toBe(true);
    expect(parseConfig('{"accessible":false}', FILE).accessible).toBe(false);
    expect(parseConfig('{"accessible":"false"}', FILE).accessible).toBe(false);
    expect(parseConfig('{}', FILE)).toEqual({ profiles: {} });
    for (const v of ['1', '"yes"', 'null', '0']) expect(refusal(`{"accessible":${v}}`).message, v).toBe(`The config file ${FILE} is not as hostctl writes it: accessible is not true or false.`);
  });

  it('names the file, what is wrong and where, with the way out', () => {
    const cases: Array<[string, string]> = [
      ['[]', 'it is not a JSON object'],
      ['{"defaultProfile":3}', 'defaultProfile is not a string'],
      ['{"profiles":[]}', 'profiles is not an object of profiles'],
      ['{"profiles":{"a":"x"}}', 'profiles.a is not an object'],
      ['{"profiles":{"a":{"baseUrl":1}}}', 'profiles.a.baseUrl is not a string'],
      ['{"profiles":{"a":{"redisUrl":false}}}', 'profiles.a.redisUrl is not a string'],
      ['{"profiles":{"a":{"output":"yaml"}}}', 'profiles.a.output is not one of table, json, ndjson, tsv'],
      ['{"profiles":{"a":{"storage":"vault"}}}', 'profiles.a.storage is not one of keychain, file'],
    ];
    for (const [text, what] of cases) {
      const err = refusal(text);
      expect(err.message, text).toBe(`The config file ${FILE} is not as hostctl writes it: ${what}.`);
      expect(err.hint, text).toBe('Fix it with an editor ("hostctl config list" shows the valid keys), or move it away to start afresh.');
    }
  });

  it('text that is not JSON is named as such, with what a move away costs', () => {
    const err = refusal('{"profiles":');
    expect(err.message).toMatch(/^The config file \/c\/config\.json is not valid JSON \(.+\)\.$/);
    expect(err.hint).toBe('Fix it with an editor, or move it away to start afresh (its profiles are then lost).');
  });
});

describe('isOutputFormat', () => {
  it('is true for the four formats only', () => {
    for (const f of ['table', 'json', 'ndjson', 'tsv']) expect(isOutputFormat(f), f).toBe(true);
    for (const f of ['yaml', '', undefined, 1, 'JSON']) expect(isOutputFormat(f), String(f)).toBe(false);
  });
});

describe('checkProfileName', () => {
  it('an empty name and a bad one are told apart, with the rule', () => {
    const hint = 'Use letters, digits, "-" and "_" (up to 64 characters, starting with a letter or digit), e.g. staging.';
    expect(() => checkProfileName('')).toThrow(new UsageError('The profile name is empty.', hint));
    for (const name of ['a.b', '-x', 'x'.repeat(65), '../x']) {
      let err: unknown;
      try {
        checkProfileName(name);
      } catch (e) {
        err = e;
      }
      expect((err as UsageError).message, name).toBe(`${JSON.stringify(name)} is not a valid profile name.`);
      expect((err as UsageError).hint, name).toBe(hint);
    }
    expect(checkProfileName('staging_2-b')).toBe('staging_2-b');
  });
});
