import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryEngine } from '../../src';
import { LISTING_SLACK_MS } from '../../src/engine/ledger/ScopeDirectory';
import { backends, TestClock } from '../support/backends';
import { ask, CHANNEL, GUILD, MAYA, turn } from '../support/turns';

// Capture leaves the listing of a steady conversation unwritten while its last write still covers the entry
// (LISTING_SLACK_MS). These are the cases where that must not hide an entry from status, export and erasure.
describe.each(backends)('steady listings on $name', (backend) => {
	const clock = new TestClock(Date.UTC(2026, 2, 2, 18));
	let a: MemoryEngine;
	let b: MemoryEngine;
	let cleanup: () => void;

	beforeAll(async () => {
		const url = backend.url();
		cleanup = url.cleanup;
		// Two engines on one store, as two shard processes are.
		const open = () =>
			MemoryEngine.open({
				env: {},
				now: clock.now,
				config: { storeUrl: url.storeUrl, storeNamespace: url.namespace, ...backend.config, sweepIntervalMinutes: 0 }
			});
		a = await open();
		b = await open();
	});
	afterAll(async () => {
		await a.close();
		await b.close();
		cleanup();
	});

	const channelsOf = async (engine: MemoryEngine) => (await engine.exportUser(MAYA.id)).shortTerm.map((entry) => entry.channelId);

	it('GIVEN a member erased through one process WHEN she talks again through another THEN the new entry is listed at once', async () => {
		await a.recordTurn(turn({ text: 'first words' }));
		clock.advance(1000);
		await a.recordTurn(turn({ text: 'second words' }));
		expect(await channelsOf(b)).toContain(CHANNEL);

		await b.clearAll(MAYA.id);
		expect(await channelsOf(b)).toEqual([]);
		clock.advance(1000);
		// Within the slack: process A's cache still holds the listing it wrote, but the entry is gone from the store.
		await a.recordTurn(turn({ text: 'words after the erasure' }));
		expect(await channelsOf(b)).toEqual([CHANNEL]);
		const context = await b.buildContext(ask({ query: 'erasure' }));
		expect(context.text).toContain('words after the erasure');
		expect(context.text).not.toContain('first words');
	});

	it('GIVEN a steady conversation THEN its listing is rewritten only once the slack has passed, and always covers the entry', async () => {
		const listing = async () => {
			const exported = await b.exportUser(MAYA.id);
			return exported.shortTerm.find((entry) => entry.channelId === CHANNEL);
		};
		await a.recordTurn(turn({ text: 'steady one' }));
		const first = (await b.status(MAYA.id)).shortTermEntries;
		for (let at = 0; at < 5; at++) {
			clock.advance(LISTING_SLACK_MS / 4);
			await a.recordTurn(turn({ text: `steady ${at}` }));
		}
		// After 1.25 slack periods the entry is still found, by status and export, from the other process.
		expect((await b.status(MAYA.id)).shortTermEntries).toBe(first);
		expect(first).toBe(1);
		expect((await listing())?.messages.map((message) => message.text)).toContain('steady 4');
	});
});
