import { ActionRowBuilder, AttachmentBuilder, ButtonBuilder, ButtonStyle } from 'discord.js';
import type { SessionText } from '../../src/plugin/SessionText';
import { textPages } from '../../src/plugin/textPages';
import type { SessionAnswer } from './reply';

/** The `/session` answers shown in pages: they hold everything stored, so they may not fit in one message. */
export type PagedView = 'profile' | 'status';

const VIEWS: readonly PagedView[] = ['profile', 'status'];

/** How long the ◀ ▶ buttons of a paged answer work. */
export const PAGES_LIFETIME_MS = 10 * 60_000;

/** Beyond this many pages, the answer comes as a text file: nobody pages through more. */
export const MAX_PAGES = 50;

/** A page button; its custom id is `memory:page:<view>:<userId>:<page>:<expiresAt>`, the page it shows counted from 0. */
export interface PageButton {
	view: PagedView;
	userId: string;
	page: number;
	expiresAt: number;
}

export function pageButtonId({ view, userId, page, expiresAt }: PageButton): string {
	return `memory:page:${view}:${userId}:${page}:${expiresAt}`;
}

export function parsePageButton(customId: string): PageButton | null {
	const [memory, kind, view, userId, page, expiresAt, ...rest] = customId.split(':');
	if (memory !== 'memory' || kind !== 'page' || !VIEWS.includes(view as PagedView) || rest.length > 0) return null;
	if (!userId || !/^\d+$/.test(page ?? '') || !/^\d+$/.test(expiresAt ?? '')) return null;
	return { view: view as PagedView, userId, page: Number(page), expiresAt: Number(expiresAt) };
}

/**
 * `body` as the member sees it: one message when it fits; else one page of it (the first unless `page` says) under
 * ◀ n / N ▶ buttons that work for {@link PAGES_LIFETIME_MS}; else, past {@link MAX_PAGES}, a text file. Never cut.
 */
export function pagedAnswer(
	body: string,
	{ view, userId, page = 0, expiresAt = Date.now() + PAGES_LIFETIME_MS }: Omit<PageButton, 'page' | 'expiresAt'> & Partial<PageButton>,
	text: SessionText
): SessionAnswer {
	const pages = textPages(body);
	if (pages.length === 1) return { content: body, components: [] };
	if (pages.length > MAX_PAGES) {
		const file = new AttachmentBuilder(Buffer.from(body, 'utf8'), { name: `memory-${view}-${userId}.txt` });
		return { content: text.get('pages.asFile', { pages: pages.length }), files: [file], components: [] };
	}
	// The data may have shrunk since the page was asked for: show the last page there is.
	const shown = Math.min(page, pages.length - 1);
	const button = (to: number) => new ButtonBuilder().setCustomId(pageButtonId({ view, userId, page: to, expiresAt }));
	const row = new ActionRowBuilder<ButtonBuilder>().addComponents(
		button(shown - 1)
			.setLabel(text.get('pages.previous'))
			.setStyle(ButtonStyle.Secondary)
			.setDisabled(shown === 0),
		// Not a button to press: where the member is. Its id is the page shown, unlike its neighbours'.
		button(shown)
			.setLabel(text.get('pages.position', { page: shown + 1, pages: pages.length }))
			.setStyle(ButtonStyle.Secondary)
			.setDisabled(true),
		button(shown + 1)
			.setLabel(text.get('pages.next'))
			.setStyle(ButtonStyle.Secondary)
			.setDisabled(shown === pages.length - 1)
	);
	return { content: pages[shown]!, components: [row] };
}
