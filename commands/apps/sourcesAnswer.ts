import { ActionRowBuilder, ButtonBuilder, ButtonStyle, EmbedBuilder, escapeMarkdown } from 'discord.js';
import { type ContextSourceLine, type ContextSources, SOURCE_TIERS, type SourceTier } from '../../src/engine';
import type { SessionText } from '../../src/plugin/SessionText';
import type { SessionAnswer } from '../session/reply';
import { forgetLineButtonId } from './forgetLineButton';

/** Characters of a message shown on its line: enough to recognise it, the jump link shows the rest. */
const LINE_TEXT_CHARS = 140;
/** Characters the lines may take over all embeds: Discord allows 6,000 in one message's embeds, titles included. */
const EMBED_CHARS = 5_600;
/** Forget buttons on one answer: Discord's five rows of five. */
const MAX_BUTTONS = 25;

const TIER_TITLES: Record<SourceTier, 'apps.sources.tier.summary' | 'apps.sources.tier.relevant' | 'apps.sources.tier.recent'> = {
	summary: 'apps.sources.tier.summary',
	relevant: 'apps.sources.tier.relevant',
	recent: 'apps.sources.tier.recent'
};

/**
 * What did you remember? as the member sees it: a heading, one embed per tier with a numbered line per message (its author,
 * its text cut short, a jump link), what was counted and not shown, and a Forget button for each of their own lines.
 */
export function sourcesAnswer(sources: ContextSources, text: SessionText, ttlHours: number): SessionAnswer {
	if (!sources.kept) return text.get('apps.sources.notKept', { hours: ttlHours });
	const notes = [
		sources.hidden > 0 ? text.get('apps.sources.hidden', { count: sources.hidden }) : '',
		sources.gone > 0 ? text.get('apps.sources.gone', { count: sources.gone }) : ''
	];
	if (sources.lines.length === 0) return [text.get('apps.sources.nothingDrawn'), ...notes].filter(Boolean).join('\n');

	const embeds: EmbedBuilder[] = [];
	const buttons: ButtonBuilder[] = [];
	let room = EMBED_CHARS;
	let shown = 0;
	for (const tier of SOURCE_TIERS) {
		const title = text.get(TIER_TITLES[tier]);
		const lines: string[] = [];
		room -= title.length;
		for (const line of sources.lines.filter((candidate) => candidate.tier === tier)) {
			const number = shown + 1;
			const rendered = lineText(line, number);
			if (rendered.length + 1 > room) break;
			room -= rendered.length + 1;
			lines.push(rendered);
			shown = number;
			if (line.own && buttons.length < MAX_BUTTONS)
				buttons.push(
					new ButtonBuilder()
						.setCustomId(forgetLineButtonId({ ...line, number }))
						.setLabel(text.get('apps.sources.forgetButton', { number }))
						.setStyle(ButtonStyle.Danger)
				);
		}
		if (lines.length > 0) embeds.push(new EmbedBuilder().setTitle(title).setDescription(lines.join('\n')));
	}
	const more = sources.lines.length - shown + sources.omitted;
	const heading = text.get('apps.sources.heading', { built: `<t:${Math.floor((sources.builtAt ?? Date.now()) / 1000)}:R>` });
	const content = [heading, more > 0 ? text.get('apps.sources.more', { count: more }) : '', ...notes].filter(Boolean).join('\n');
	const rows = [];
	for (let at = 0; at < buttons.length; at += 5) rows.push(new ActionRowBuilder<ButtonBuilder>().addComponents(buttons.slice(at, at + 5)));
	return { content, embeds, components: rows };
}

/** `**3.** **Maya**: the text… [↗](link)`: its number is what its Forget button names. */
function lineText(line: ContextSourceLine, number: number): string {
	const flat = line.text.replace(/\s+/g, ' ').trim();
	const cut = flat.length > LINE_TEXT_CHARS ? `${[...flat].slice(0, LINE_TEXT_CHARS).join('').trimEnd()}…` : flat;
	const author = line.authorName
		? `**${escapeMarkdown(line.authorName)}**`
		: line.authorId && line.role === 'user'
			? `<@${line.authorId}>`
			: '**?**';
	const link = `https://discord.com/channels/${line.serverId ?? '@me'}/${line.channelId}/${line.messageId}`;
	return `${numbered(number)}${author}: ${escapeMarkdown(cut)} [↗](${link})`;
}

/** A line's number as it starts the line: what marking it forgotten looks for. */
export function numbered(number: number): string {
	return `**${number}.** `;
}
