import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryConfig, MemoryTurn } from '../../src';
import { backends, skipEachWhereUnavailable } from '../support/backends';
import { ShardProcess } from '../support/shards';
import { rowsHolding, StoreInspection } from '../support/store-inspection';
import { MAYA, said, snowflake, THEO } from '../support/turns';

/**
 * Two shard processes under load on one store: A records Maya's and Theo's turns in four channels while B
 * erases Maya again and again, then deletes messages on Discord. Afterwards no listing names an entry that
 * is gone, every entry that exists is listed, and a last erasure leaves nothing of Maya in any row.
 */
const GUILD = '920000000000000001';
const CHANNELS = ['921000000000000001', '921000000000000002', '921000000000000003', '921000000000000004'];
const ROUNDS = 40;

let saidAt = Date.now() - 10 * ROUNDS * 1000;

function turnOf(who: { id: string; name: string }, channelId: string, text: string): MemoryTurn {
	saidAt += 1000;
	return {
		userId: who.id,
		userName: who.name,
		serverId: GUILD,
		channelId,
		timestamp: saidAt,
		history: [said(who, text, saidAt)],
		responses: [{ text: `Sol repeats: ${text}`, personaId: 'sol', personaName: 'Sol', messageId: snowflake() }]
	};
}

const shardBackends = backends.filter((backend) => !backend.file);

describe.each(shardBackends)('GIVEN two shard processes erasing and writing one $name store at once', (backend) => {
	skipEachWhereUnavailable(backend);
	let a: ShardProcess;
	let b: ShardProcess;
	let inspect: StoreInspection;
	let location: { storeUrl: string; namespace: string };

	beforeAll(async () => {
		if (backend.skipReason) return;
		const { storeUrl, namespace } = backend.url();
		location = { storeUrl, namespace };
		const config: Partial<MemoryConfig> = { storeUrl, storeNamespace: namespace, sweepIntervalMinutes: 0, maxMessagesPerChannel: 4 };
		[a, b] = await Promise.all([ShardProcess.start('A', config), ShardProcess.start('B', config)]);
		inspect = await StoreInspection.open(location);
	}, 30_000);

	afterAll(async () => {
		await Promise.all([a?.stop(), b?.stop()]);
		if (!inspect) return;
		await inspect.clear();
		await inspect.close();
	});

	it('THEN no listing is left dangling, none is lost, and the last erasure leaves nothing of her', async () => {
		const work: Promise<unknown>[] = [];
		const theirs: string[] = [];
		for (let round = 0; round < ROUNDS; round++) {
			const channelId = CHANNELS[round % CHANNELS.length]!;
			const mayaTurn = turnOf(MAYA, channelId, `MAYA-LOAD-${round}`);
			work.push(a.call('recordTurn', mayaTurn));
			work.push(a.call('recordTurn', turnOf(THEO, channelId, `theo-load-${round}`)));
			theirs.push(mayaTurn.history[0]!.messageId!);
			if (round % 5 === 2) work.push(b.call('clearAll', MAYA.id));
			if (round % 7 === 3) work.push(b.call('messagesChanged', { serverId: GUILD, channelId, messageIds: theirs.slice(-2), kind: 'deleted' }));
		}
		await Promise.all(work);
		// One more erasure, while A still writes Theo's turns.
		await Promise.all([
			b.call('clearAll', MAYA.id),
			...CHANNELS.map((channelId, index) => a.call('recordTurn', turnOf(THEO, channelId, `theo-after-${index}`)))
		]);

		// Every listing of the directories names an entry that exists, and every entry that exists is listed.
		const rows = await inspect.rows();
		const keyOf = (row: string) => row.split(' ')[0]!.replace(`${location.namespace}:`, '');
		const entries = new Set(rows.map(keyOf).filter((key) => key.startsWith('shortterm:')));
		const directories = [
			inspect.userDirectory(MAYA.id),
			inspect.userDirectory(THEO.id),
			inspect.serverDirectory(GUILD),
			...CHANNELS.map((channelId) => inspect.channelDirectory(GUILD, channelId))
		];
		const listed = new Set<string>();
		for (const directory of directories) for (const key of Object.keys((await directory.read()) ?? {})) listed.add(key);
		expect(
			[...listed].filter((key) => !entries.has(key)),
			'listings of entries that are gone'
		).toEqual([]);
		expect(
			[...entries].filter((key) => !listed.has(key)),
			'entries no directory lists'
		).toEqual([]);
		// The author index names only scopes that exist.
		for (const who of [MAYA, THEO]) {
			const authored = Object.keys((await inspect.authorIndex(who.id).read()) ?? {});
			expect(
				authored.filter((key) => !entries.has(key) && !rows.some((row) => keyOf(row) === `archive:${key}:head`)),
				`${who.name}'s author index`
			).toEqual([]);
		}

		expect(await rowsHolding(location, 'MAYA-LOAD')).toEqual([]);
		expect(await rowsHolding(location, 'theo-after-3')).not.toEqual([]);
	}, 120_000);
});
