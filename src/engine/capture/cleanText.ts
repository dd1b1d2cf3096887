import { createHash } from 'node:crypto';

const SYSTEM_ANNOTATION = /\[System:[^\]]*\]/gi;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const CUSTOM_EMOJI = /<a?:(\w{1,32}):\d{5,25}>/g;
// A match starts only where a run of spaces starts, so a long run with no line break is scanned once, not from each of its characters.
const SPACE_BEFORE_BREAK = /(?<![ \t])[ \t]+\n/g;
const INVISIBLE = /^[\s\p{Cf}]*$/u;

/**
 * Cleans a message before it is stored: ephemeral `[System: …]` annotations go,
 * custom emoji `<:name:id>` become `:name:`, broken UTF-16 becomes U+FFFD, surrounding space is trimmed;
 * a text left with nothing visible (white space, zero-width and other format characters) becomes empty.
 */
export function cleanText(text: string): string {
	const wellFormed = text.replace(LONE_SURROGATE, '\uFFFD');
	// Only up to the last "]": past it an unclosed "[System:" would be scanned to the end from every start (quadratic).
	const closed = wellFormed.lastIndexOf(']') + 1;
	const cleaned = (wellFormed.slice(0, closed).replace(SYSTEM_ANNOTATION, '') + wellFormed.slice(closed))
		.replace(CUSTOM_EMOJI, ':$1:')
		.replace(SPACE_BEFORE_BREAK, '\n')
		.trim();
	// Nothing but white space and invisible format characters (a lone zero-width space) is no message.
	return INVISIBLE.test(cleaned) ? '' : cleaned;
}

/** A stable id for a message the host gave no id for, so re-recording it is recognised. */
export function contentId(parts: readonly (string | number | undefined)[]): string {
	return `h:${createHash('sha1')
		.update(parts.map((part) => String(part ?? '')).join('\u0000'))
		.digest('base64url')
		.slice(0, 16)}`;
}

/** FNV-1a, 32 bits (signed): a quick hash that is the same in every process and version, unlike a language's own. */
export function fnv1a(text: string): number {
	let hash = 0x811c9dc5;
	for (let at = 0; at < text.length; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
	return hash;
}
