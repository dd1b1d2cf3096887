/**
 * What a context drew on waits in the process for the turn that answers with it, and a record keeps at most 200 ids: both
 * bounded, whatever a host does (contexts built with no reply after them, a context of the largest budget).
 */
import { describe, expect, it } from 'vitest';
import { PendingSources } from '../../src/engine/context/PendingSources';
import { boundedGroups, MAX_RECORDED_SOURCES } from '../../src/engine/records/contextSourceRecords';
import type { SourceGroup } from '../../src/engine/schemas';

const where = (userId: string) => ({ userId, serverId: '1', channelId: '2', personaId: 'sol' });
const group = (tier: SourceGroup['tier'], count: number, from = 0): SourceGroup => ({
	tier,
	serverId: '1',
	channelId: '2',
	ids: Array.from({ length: count }, (_, at) => String(from + at))
});

describe('the sources a context drew on', () => {
	it('WHEN a context draws on more than 200 messages THEN the record keeps the first 200, in the context’s order, and counts the rest', () => {
		const { groups, omitted } = boundedGroups([group('summary', 150), group('relevant', 100, 1000), group('recent', 30, 2000)]);
		expect(groups.map((kept) => [kept.tier, kept.ids.length])).toEqual([
			['summary', 150],
			['relevant', 50]
		]);
		expect(groups[1]!.ids.at(-1)).toBe('1049');
		expect(omitted).toBe(80);
		expect(groups.flatMap((kept) => kept.ids)).toHaveLength(MAX_RECORDED_SOURCES);
	});

	it('WHEN a turn comes THEN it takes its own conversation’s newest context once; another member’s, or one 15 minutes old, it does not', () => {
		const pending = new PendingSources();
		pending.note(where('maya'), { at: 0, groups: [group('recent', 1)], omitted: 0 });
		pending.note(where('maya'), { at: 1_000, groups: [group('recent', 2)], omitted: 0 });
		expect(pending.take(where('theo'), 2_000)).toBeNull();
		expect(pending.take(where('maya'), 2_000)?.groups[0]!.ids).toEqual(['0', '1']);
		expect(pending.take(where('maya'), 2_000)).toBeNull();
		pending.note(where('maya'), { at: 0, groups: [], omitted: 0 });
		expect(pending.take(where('maya'), 15 * 60_000 + 1)).toBeNull();
	});

	it('WHEN contexts are built that no reply follows THEN at most 2,000 wait, the oldest going first', () => {
		const pending = new PendingSources();
		for (let at = 0; at < 2_500; at++) pending.note(where(`member${at}`), { at, groups: [], omitted: 0 });
		expect(pending.take(where('member0'), 2_500)).toBeNull();
		expect(pending.take(where('member499'), 2_500)).toBeNull();
		expect(pending.take(where('member500'), 2_500)).not.toBeNull();
		expect(pending.take(where('member2499'), 2_500)).not.toBeNull();
	});
});
