import type { APIButtonComponentWithCustomId } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { MAX_PAGES, pagedAnswer, parsePageButton } from '../../commands/session/pages';
import { SessionText } from '../../src/plugin/SessionText';

const USER = '258334176382853120';
const text = new SessionText(null);
const at = { view: 'profile' as const, userId: USER, expiresAt: 1_800_000_000_000 };

/** `count` lines of `width` characters, each naming its number. */
const lines = (count: number, width = 99) => Array.from({ length: count }, (_, index) => `• line ${index} `.padEnd(width, 'x')).join('\n');

/** The answer as Discord gets it: content, buttons, files. */
function sent(body: string, page?: number) {
	const answer = pagedAnswer(body, { ...at, ...(page === undefined ? {} : { page }) }, text);
	if (typeof answer === 'string') throw new Error('a paged answer is a message');
	const rows = (answer.components ?? []) as unknown as { toJSON(): { components: APIButtonComponentWithCustomId[] } }[];
	const buttons = rows.flatMap((row) => row.toJSON().components);
	return { content: answer.content, buttons, files: answer.files ?? [] };
}

describe('pagedAnswer: a /session answer whole, in one message, in pages or as a file', () => {
	it('GIVEN a text that fits THEN it is one message, as it is, without buttons', () => {
		const body = lines(20);

		expect(sent(body)).toEqual({ content: body, buttons: [], files: [] });
	});

	it('GIVEN a longer text THEN the first page shows under ◀ 1 / N ▶, ◀ disabled, the ids naming the member, the page and the end', () => {
		const { content, buttons } = sent(lines(100));

		expect(content).toBe(lines(20));
		expect(buttons.map((button) => [button.label, button.disabled ?? false])).toEqual([
			['◀', true],
			['1 / 5', true],
			['▶', false]
		]);
		expect(buttons.map((button) => parsePageButton(button.custom_id))).toEqual([null, { ...at, page: 0 }, { ...at, page: 1 }]);
	});

	it('GIVEN the last page THEN ▶ is disabled, and a page past the end (the text shrank) shows the last one', () => {
		const last = sent(lines(100), 4);

		expect(last.buttons.map((button) => button.disabled ?? false)).toEqual([false, true, true]);
		expect(parsePageButton(last.buttons[0]!.custom_id)).toEqual({ ...at, page: 3 });
		expect(sent(lines(100), 9)).toEqual(last);
	});

	it(`GIVEN a text of more than ${MAX_PAGES} pages THEN it comes whole as a text file, without buttons`, () => {
		const body = lines(20 * MAX_PAGES + 1);

		const { content, buttons, files } = sent(body);

		expect(content).toBe(`This is ${MAX_PAGES + 1} pages long, so here it is whole as a text file.`);
		expect(buttons).toEqual([]);
		const file = files[0] as { attachment: Buffer; name: string };
		expect(file.name).toBe(`memory-profile-${USER}.txt`);
		expect(file.attachment.toString('utf8')).toBe(body);
	});

	it('GIVEN ids that are not a page button THEN none parses', () => {
		for (const id of [
			`memory:clear-all:confirm:${USER}:1`,
			`memory:page:secrets:${USER}:0:1`,
			`memory:page:profile:${USER}:-1:1`,
			`memory:page:profile:${USER}:0:1:extra`,
			`other:page:profile:${USER}:0:1`
		])
			expect(parsePageButton(id)).toBeNull();
	});
});
