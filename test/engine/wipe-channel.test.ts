/**
 * A moderator's `/session wipe-channel` takes every message of the channel out of every copy, whatever forgetting ran
 * there before: the channel's archive outlives the shared entry that listed it.
 */
import { describe, expect, it } from 'vitest';
import { backends, openEngine, skipEachWhereUnavailable } from '../support/backends';
import { CHANNEL, GUILD, MAYA, OTHER_CHANNEL, THEO, turn } from '../support/turns';

describe.each(backends)('a channel wiped on $name', (backend) => {
	skipEachWhereUnavailable(backend);
	it('GIVEN one member who cleared everything and another who cleared short-term memory THEN a wipe still empties the archive', async () => {
		const opened = await openEngine(backend, { config: { sweepIntervalMinutes: 0 } });
		try {
			const { engine } = opened;
			for (const who of [MAYA, THEO]) {
				for (let index = 0; index < 20; index++) {
					const channelId = index % 2 ? OTHER_CHANNEL : CHANNEL;
					await engine.recordTurn(turn({ who, channelId, text: `${who.name} says qz${index}q`, reply: 'ok' }));
				}
			}
			await engine.clearAll(MAYA.id);
			await engine.clearShortTerm(THEO.id);
			const archivedThere = async () => (await engine.exportUser(THEO.id)).archive.filter((message) => message.channelId === CHANNEL);
			expect(await archivedThere()).toHaveLength(10);

			const wiped = await engine.wipeChannel(GUILD, CHANNEL);

			expect(wiped.messagesDeleted).toBeGreaterThanOrEqual(10);
			expect(await archivedThere()).toEqual([]);
			expect((await engine.exportUser(THEO.id)).archive.filter((message) => message.channelId === OTHER_CHANNEL)).toHaveLength(10);
		} finally {
			await opened.dispose();
		}
	});
});
