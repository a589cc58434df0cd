import { describe, expect, it } from 'vitest';
import { CONTROL_CHARS, oneLine, sanitize } from '../../src/output/sanitize.js';

describe('sanitize', () => {
  it('leaves ordinary text, CJK and emoji alone', () => {
    for (const s of ['web-api', 'Zoë Ünal', '漢字のアプリ', '🚀 launch 👩‍💻', 'a  b', '']) expect(sanitize(s)).toBe(s);
  });

  it('makes the OSC title attack from the contract harmless', () => {
    expect(sanitize('\u001b]0;pwned\u0007')).toBe('');
    expect(sanitize('app\u001b]0;pwned\u001b\\name')).toBe('appname');
  });

  it('removes CSI sequences whole (colours, cursor moves, screen clears)', () => {
    expect(sanitize('\u001b[31mred\u001b[0m')).toBe('red');
    expect(sanitize('a\u001b[2J\u001b[1;1Hb')).toBe('ab');
    expect(sanitize('x\u001b[?25ly')).toBe('xy');
  });

  it('removes 8-bit C1 forms: CSI U+009B, OSC U+009D, NEL U+0085', () => {
    expect(sanitize('a\u009b31mb')).toBe('ab');
    expect(sanitize('a\u009d0;t\u009cb')).toBe('ab');
    expect(sanitize('a\u0085b')).toBe('ab');
  });

  it('keeps the text of an unterminated OSC visible instead of hiding the rest of the line', () => {
    expect(sanitize('\u001b]0;rest of name')).toBe('0;rest of name');
  });

  it('removes other C0 controls, DEL, and a lone ESC', () => {
    expect(sanitize('a\u0000b\u0007c\u0008d\u007fe\u001b')).toBe('abcde');
    expect(sanitize('tab\there\nnew\rline')).toBe('tabherenewline');
  });

  it('removes bidi overrides, isolates and marks', () => {
    const bidi = '\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c';
    expect(sanitize(`invoice${bidi}fdp.exe`)).toBe('invoicefdp.exe');
  });

  it('leaves nothing unsafe whatever the input', () => {
    let all = '';
    for (let c = 0; c < 0x250; c++) all += String.fromCharCode(c);
    all += '\u202a\u202e\u2066\u2069\u200e\u200f\u061c';
    const clean = sanitize(all);
    // Nothing left to remove: a second pass changes nothing.
    expect(sanitize(clean)).toBe(clean);
    expect(clean).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    expect(clean).not.toBe(all);
  });
});

describe('CONTROL_CHARS', () => {
  it('is exactly C0, DEL and C1, the class the sandbox shares too', () => {
    const re = new RegExp(`^[${CONTROL_CHARS}]$`);
    const matched: number[] = [];
    for (let c = 0; c <= 0xffff; c++) if (re.test(String.fromCharCode(c))) matched.push(c);
    const expected = [...Array(0x20).keys(), ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i)];
    expect(matched).toEqual(expected);
  });
});

describe('oneLine', () => {
  it('makes breaks and runs of space one space, and trims the ends', () => {
    expect(oneLine('  first\r\n\n\tsecond \v\f third   fourth  ')).toBe('first second third fourth');
  });

  it('keeps a capital V (only the vertical tab is a break)', () => {
    expect(oneLine('Vim VV')).toBe('Vim VV');
  });

  it('keeps a text exactly max long, and cuts a longer one to max with an ellipsis', () => {
    expect(oneLine('abcde', 5)).toBe('abcde');
    expect(oneLine('abcdef', 5)).toBe('abcd…');
  });
});

describe('sanitize: emoji joiners, unfinished and string sequences', () => {
  it('removes a stray zero-width joiner before an emoji, and keeps one inside an emoji sequence', () => {
    expect(sanitize('a\u200d💻')).toBe('a💻');
    expect(sanitize('👍🏽\u200d')).toBe('👍🏽');
    expect(sanitize('👩‍💻')).toBe('👩‍💻');
  });

  it('removes an unfinished CSI whole, and an ESC sequence with its final byte', () => {
    expect(sanitize('a\u001b[31')).toBe('a');
    expect(sanitize('a\u009b1;2')).toBe('a');
    expect(sanitize('a\u001b(Bb')).toBe('ab');
    expect(sanitize('a\u001b(')).toBe('a');
    expect(sanitize('a\u001b7b')).toBe('ab');
    expect(sanitize('a\u001b$(Bb')).toBe('ab');
  });

  it('removes a terminated OSC, DCS, SOS, PM and APC string with its text', () => {
    for (const open of ['\u001b]', '\u001bP', '\u001bX', '\u001b^', '\u001b_', '\u0090', '\u0098', '\u009d', '\u009e', '\u009f']) {
      for (const close of ['\u0007', '\u001b\\', '\u009c']) expect(sanitize(`a${open}hidden text${close}b`)).toBe('ab');
    }
  });
});
