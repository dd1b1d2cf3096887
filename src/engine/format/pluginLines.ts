/**
 * Every line of a context the plugin writes on its own behalf: headers, the nudge, tags, date lines, channel labels and a
 * digest answer's line. Each opens with a mark that no speaker label opens with (`#`, `[`, `<`, `→`; see
 * `displayName`), and stored text only ever follows it, so no name, message or note can write one of these lines
 * (docs/context.md, "Grammar"). Items (`- …`) and digest lines (`[18:05] Maya: …`) are written where their texts are.
 */

/** The headers, one per part of a block: `# ` and their words. */
export const Headers = {
	profile: '# What this user asked you to remember about them',
	topics: '# Their notes on topics that came up',
	summary: '# Summary of this conversation',
	digestSince: '# Since then (digest, UTC)',
	digest: '# Earlier in this conversation (digest, UTC)',
	otherChannels: '# Other channels',
	relevant: '# Earlier messages that may be relevant (UTC)',
	recent: '# Recent messages in this conversation (UTC)'
} as const;

/** The nudge block's one line: the tool's name is the one the plugin offers. */
export function nudgeLine(turns: number): string {
	return (
		`# Memory: ${turns} turns since this conversation's summary was refreshed. Call update_short_term_memory with a short summary of ` +
		`what matters so far.`
	);
}

/** `# Tags: a, b`: a member's tags, already flattened. */
export function tagsLine(tags: readonly string[]): string {
	return `# Tags: ${tags.join(', ')}`;
}

/** `[2026-03-02]`: the line that opens a day's lines, from its `dayLabel`. */
export function dateLine(day: string): string {
	return `[${day}]`;
}

/** `<#810000000000000002> (DM), 3 h ago:`: the line that opens another channel's memory (ids are checked on input). */
export function channelLine(channelId: string, where: '' | ' (DM)' | ' (another server)', ago: string): string {
	return `<#${channelId}>${where}, ${ago}:`;
}

/** What opens the line of a digest question's answer, under the question: `→ Sol: yes`. */
export const ANSWER_MARK = '→ ';
