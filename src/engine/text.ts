import { createHash } from 'node:crypto';

const SYSTEM_ANNOTATION = /\[System:[^\]]*\]/gi;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
const CUSTOM_EMOJI = /<a?:(\w{1,32}):\d{5,25}>/g;

/**
 * Cleans a message before it is stored: ephemeral `[System: …]` annotations go,
 * custom emoji `<:name:id>` become `:name:`, broken UTF-16 becomes U+FFFD, surrounding space is trimmed.
 */
export function cleanText(text: string): string {
	return text.replace(LONE_SURROGATE, '\uFFFD').replace(SYSTEM_ANNOTATION, '').replace(CUSTOM_EMOJI, ':$1:').replace(/[ \t]+\n/g, '\n').trim();
}

/** A stable id for a message the host gave no id for, so re-recording it is recognised. */
export function contentId(parts: readonly (string | number | undefined)[]): string {
	return `h:${createHash('sha1').update(parts.map((part) => String(part ?? '')).join('\u0000')).digest('base64url').slice(0, 16)}`;
}
