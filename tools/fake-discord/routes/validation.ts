import { discordError, type RouteResponse } from '../router';
import type { ApiObject, RecordedFile } from '../types';

const MAX_CONTENT_LENGTH = 2000;
const MAX_FILES = 10;

/**
 * Discord's refusals of a message body that discord.js does not catch itself: more than 2000
 * characters of content, and (when creating) a message with nothing in it.
 * Returns the error answer, or undefined when the body is fine.
 */
export function invalidMessageBody(body: ApiObject, files: readonly RecordedFile[], creating: boolean): RouteResponse | undefined {
	const content = typeof body.content === 'string' ? body.content : '';
	if (content.length > MAX_CONTENT_LENGTH) return tooLong('content', MAX_CONTENT_LENGTH);
	const hasSomething =
		content.length > 0 ||
		files.length > 0 ||
		[body.embeds, body.components, body.sticker_ids, body.attachments].some((list) => Array.isArray(list) && list.length > 0) ||
		body.poll !== undefined;
	if (creating && !hasSomething) return discordError(400, 50006, 'Cannot send an empty message');
	return undefined;
}

/**
 * Discord's refusal of an interaction's uploads: more than 10 files, or more bytes than the interaction's
 * `attachment_size_limit`. Whether Discord counts the limit per file or per message is not documented; the fake holds
 * the files of one message together under it, the stricter reading, so a bot that passes here passes there.
 */
export function oversizedUpload(files: readonly RecordedFile[], limit: number): RouteResponse | undefined {
	if (files.length > MAX_FILES) return tooLong('attachments', MAX_FILES);
	const bytes = files.reduce((sum, file) => sum + file.data.length, 0);
	return bytes > limit ? discordError(413, 40005, 'Request entity too large') : undefined;
}

/** Discord's "Invalid Form Body" for a field over its length. */
function tooLong(field: string, max: number): RouteResponse {
	return {
		status: 400,
		body: {
			message: 'Invalid Form Body',
			code: 50035,
			errors: { [field]: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${max} or fewer in length.` }] } }
		}
	};
}
