// The one place where text from the API is made safe for a terminal. Table and tsv output
// pass every string through here; JSON output instead escapes the same characters (json.ts),
// so that it stays exact.

/**
 * Bidirectional formatting characters: embeddings and overrides (U+202A–U+202E), isolates
 * (U+2066–U+2069) and the invisible marks (U+200E, U+200F, U+061C). They reorder what
 * follows them on screen, so a name could make a line read differently from what it is.
 */
export const BIDI_CONTROLS = '\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069';

/** C0 (ESC included), DEL and C1 controls, and the bidi controls. */
const UNSAFE = new RegExp(`[\\u0000-\\u001f\\u007f-\\u009f${BIDI_CONTROLS}]`, 'g');
const UNSAFE_TEST = new RegExp(UNSAFE.source);

// A sequence is removed whole, not only its ESC byte, so that a coloured name reads as its
// text rather than "[31mname": CSI (ESC [ or U+009B, parameters, final byte), and OSC, DCS,
// SOS, PM, APC strings when terminated (BEL or ST). An unterminated string keeps its text
// visible: only its control characters go, so nothing after it is hidden.
const SEQUENCES =
  /(?:\u001b\[|\u009b)[\u0030-\u003f]*[\u0020-\u002f]*[\u0040-\u007e]?|(?:\u001b[\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])[^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)|\u001b[\u0020-\u002f]*[\u0030-\u007e]?/g;

/**
 * `text` without terminal control sequences, control characters or bidi controls. Tabs
 * and newlines are removed too; tsv escapes them itself before calling this (tsvCell).
 */
export function sanitize(text: string): string {
  if (!UNSAFE_TEST.test(text)) return text;
  return text.replace(SEQUENCES, '').replace(UNSAFE, '');
}

/** True when `text` holds nothing `sanitize` would remove. */
export function isTerminalSafe(text: string): boolean {
  return !UNSAFE_TEST.test(text);
}
