/**
 * The one definition of white space used wherever texts are trimmed and names compared: the Unicode
 * `White_Space` property. It differs from `String.prototype.trim` in two characters: U+0085 (NEXT
 * LINE) is white space and is trimmed, U+FEFF (the byte-order mark) is not and is kept.
 */
const LEADING = /^\p{White_Space}+/u;
const TRAILING = /\p{White_Space}+$/u;

/** Removes leading and trailing Unicode white space. */
export function trimWhiteSpace(text: string): string {
  return text.replace(LEADING, '').replace(TRAILING, '');
}

/** The key two names are compared by: trimmed, then Unicode lower-cased. */
export function nameKey(text: string): string {
  return trimWhiteSpace(text).toLowerCase();
}
