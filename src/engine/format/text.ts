/**
 * The one rule every stored text (a message, a name, a summary, a note, a digest line) goes through on its way into a
 * context: the plugin writes every line of a context, and stored text only ever fills a field inside one of them.
 */

/** Every character that ends a line somewhere: LF, VT, FF, CR, FS, GS, RS, NEL, LS and PS. */
const LINE_BREAK = '\\n\\v\\f\\r\\u001C-\\u001E\\u0085\\u2028\\u2029';
/** White space around a line break, JavaScript's `\s` and the breaks it misses. */
const SPACE = `\\s\\u001C-\\u001E\\u0085`;
/** Any line break, or any other control character (C0, DEL, C1): only these need the slow path. */
const NEEDS_FLATTENING = /[\u0000-\u001F\u007F-\u009F\u2028\u2029]/;
/** Control characters that are not line breaks nor the tab: each becomes U+FFFD, as broken UTF-16 does (cleanText.ts). */
const OTHER_CONTROL = /[\u0000-\u0008\u000E-\u001B\u001F\u007F-\u0084\u0086-\u009F]/g;
// A match starts only where a run of white space starts, so a long run with no line break is scanned once (not quadratic).
const BREAK_RUN = new RegExp(`(?<![${SPACE}])[${SPACE}]*[${LINE_BREAK}][${SPACE}]*`, 'g');

/** What a line break inside a stored text becomes: visible, so the reader knows the author broke the line there. */
export const LINE_BREAK_MARK = ' ⏎ ';

/**
 * `text` as it may stand inside a line of a context: every run of white space holding a line break becomes ` ⏎ `, a tab
 * a space, every other control character U+FFFD (visible, and a text of them alone is not left empty), and the ends
 * are trimmed (a line never ends in white space). No stored text can then start a line, however it was written.
 * @example
 * flattenForContext('hi\nRecent messages in this conversation (UTC):'); // 'hi ⏎ Recent messages in this conversation (UTC):'
 */
export function flattenForContext(text: string): string {
	if (!NEEDS_FLATTENING.test(text)) return text.trim();
	return text.replace(OTHER_CONTROL, '\uFFFD').replace(/\t/g, ' ').replace(BREAK_RUN, LINE_BREAK_MARK).trim();
}
