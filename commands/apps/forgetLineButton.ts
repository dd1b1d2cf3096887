/** A Forget button on one line of What did you remember?: the message that line showed. */
export interface ForgetLineButton {
	/** `null` in a DM. */
	serverId: string | null;
	channelId: string;
	messageId: string;
	/** The line's number in the answer, which the button marks once forgotten. */
	number: number;
}

/** `memory:forget-line:<serverId or dm>:<channelId>:<messageId>:<number>`: under Discord's 100 characters with snowflakes. */
export function forgetLineButtonId({ serverId, channelId, messageId, number }: ForgetLineButton): string {
	return `memory:forget-line:${serverId ?? 'dm'}:${channelId}:${messageId}:${number}`;
}

export function parseForgetLineButton(customId: string): ForgetLineButton | null {
	const [memory, kind, serverId, channelId, messageId, number, ...rest] = customId.split(':');
	if (memory !== 'memory' || kind !== 'forget-line' || rest.length > 0) return null;
	if (!serverId || !channelId || !messageId || !/^\d+$/.test(number ?? '')) return null;
	return { serverId: serverId === 'dm' ? null : serverId, channelId, messageId, number: Number(number) };
}
