import type { SessionText } from '../../src/plugin/SessionText';

/** discord.js's errors for options that are missing or of another type than the command registered. */
const MALFORMED = new Set([
	'CommandInteractionOptionNotFound',
	'CommandInteractionOptionType',
	'CommandInteractionOptionEmpty',
	'CommandInteractionOptionNoSubcommand',
	'CommandInteractionOptionInvalidChannelType'
]);

/**
 * The explanation for a member whose options Discord's client would not have sent (typed by hand
 * through the API, or from an outdated command); null for any other error.
 */
export function malformedOptions(error: unknown, text: SessionText): string | null {
	if (!(error instanceof Error) || !('code' in error) || !MALFORMED.has(String(error.code))) return null;
	return text.get('reply.malformed', { detail: error.message });
}
