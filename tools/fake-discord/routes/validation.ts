import { discordError, type RouteResponse } from '../router';
import type { ApiObject, RecordedFile } from '../types';

const MAX_CONTENT_LENGTH = 2000;

/**
 * Discord's refusals of a message body that discord.js does not catch itself: more than 2000
 * characters of content, and (when creating) a message with nothing in it.
 * Returns the error answer, or undefined when the body is fine.
 */
export function invalidMessageBody(body: ApiObject, files: readonly RecordedFile[], creating: boolean): RouteResponse | undefined {
	const content = typeof body.content === 'string' ? body.content : '';
	if (content.length > MAX_CONTENT_LENGTH) {
		return {
			status: 400,
			body: {
				message: 'Invalid Form Body',
				code: 50035,
				errors: { content: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${MAX_CONTENT_LENGTH} or fewer in length.` }] } }
			}
		};
	}
	const hasSomething =
		content.length > 0 ||
		files.length > 0 ||
		[body.embeds, body.components, body.sticker_ids, body.attachments].some((list) => Array.isArray(list) && list.length > 0) ||
		body.poll !== undefined;
	if (creating && !hasSomething) return discordError(400, 50006, 'Cannot send an empty message');
	return undefined;
}
