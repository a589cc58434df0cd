// The one place where text is made safe for a terminal: table and tsv cells, error
// messages, --verbose lines, completion descriptions. JSON output instead escapes the
// same characters (json.ts), so that it stays exact. Secrets are replaced here as well,
// before anything is cut short, so that a truncated value cannot keep part of a token.

import { scrubSecrets } from '../io.js';

/**
 * Bidirectional formatting characters: embeddings and overrides (U+202A–U+202E), isolates
 * (U+2066–U+2069) and the invisible marks (U+200E, U+200F, U+061C). They reorder what
 * follows them on screen, so a name could make a line read differently from what it is.
 */
export const BIDI_CONTROLS = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069';

/**
 * Invisible format characters: zero-width space, joiners (U+200B–U+200D), word joiner and
 * invisible operators (U+2060–U+2064), the byte-order mark (U+FEFF), soft hyphen, the
 * Mongolian vowel separator, and the line and paragraph separators (U+2028, U+2029).
 * They make two different IDs look the same ("ap-1" and "ap-\u200b1").
 */
const INVISIBLE = '\u00ad\u180e\u200b\u200c\u2028\u2029\u2060-\u2064\ufeff';

/** A zero-width joiner, except inside an emoji sequence (👩‍💻), where it is part of the picture. */
const STRAY_JOINER = /(?<!\p{Extended_Pictographic}|\u{fe0f}|\p{Emoji_Modifier})\u200d|\u200d(?!\p{Extended_Pictographic})/gu;

/** C0 controls, DEL and C1 controls, as the body of a character class. */
export const CONTROL_CHARS = '\\u0000-\\u001f\\u007f-\\u009f';

const UNSAFE = new RegExp(`[${CONTROL_CHARS}${BIDI_CONTROLS}${INVISIBLE}]`, 'g');
const UNSAFE_TEST = new RegExp(`${UNSAFE.source}|\u200d`);
// The same, but tab, newline and carriage return stay (tsv escapes them itself).
const UNSAFE_KEEP_BREAKS = new RegExp(`[\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}${INVISIBLE}]`, 'g');

// A sequence is removed whole, not only its ESC byte, so that a coloured name reads as its
// text rather than "[31mname": CSI (ESC [ or U+009B, parameters, final byte), and OSC, DCS,
// SOS, PM, APC strings when terminated (BEL or ST). An unterminated string keeps its text
// visible: only its control characters go, so nothing after it is hidden.
const SEQUENCES =
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

export interface SanitizeOptions {
  /** Keep tab, newline and carriage return, for a caller that escapes them (tsv). */
  keepBreaks?: boolean;
}

/**
 * `text` without secrets, terminal control sequences, control characters, bidi controls
 * or invisible format characters. Tabs and newlines go too unless `keepBreaks`.
 */
export function sanitize(text: string, opts: SanitizeOptions = {}): string {
  text = scrubSecrets(text);
  if (!UNSAFE_TEST.test(text)) return text;
  return text
    .replace(SEQUENCES, '')
    .replace(opts.keepBreaks ? UNSAFE_KEEP_BREAKS : UNSAFE, '')
    .replace(STRAY_JOINER, '');
}

/**
 * One line of at most `max` characters: breaks and runs of space become one space, and
 * the rest is sanitised (secrets replaced) before the cut.
 */
export function oneLine(text: string, max = 160): string {
  const flat = sanitize(text.replace(/[\r\n\t\v\f]+/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
