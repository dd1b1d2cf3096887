/**
 * Values in the store that do not parse, or come from another schema version (issue 5: bad input).
 * Each is written straight through keyv, around the engine, as a bug, a hand edit or an older
 * version would leave it. The engine must not crash, must serve what it can, must keep recording,
 * and replaces the bad value on the next write (README: Guarantees, "Bad input").
 */
import { describe, expect, it } from 'vitest';
import { PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { serverScopeKey } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, OTHER_CHANNEL, said, THEO, turn } from '../support/turns';

describe.each(backends)('a damaged store on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	/** The entry the context reads in #general, and its archive. */
	const live = () => under.inspect.serverEntry(GUILD, CHANNEL, 'sol');
	const liveArchive = () => under.inspect.archive(serverScopeKey(GUILD, CHANNEL, 'sol'));
	const envelope = (d: unknown, v = 1) => ({ v, d });
	const texts = (context: { text: string }) => context.text;

	/** Maya talks in #general (twice, so the archive holds more than the window's newest), in #other and in a DM. */
	async function converse() {
		await under.engine.recordTurn(turn({ text: 'my beagle is called Biscuit', reply: 'Biscuit!', timestamp: clock.current }));
		clock.advance(60_000);
		await under.engine.recordTurn(turn({ text: 'we fly to Porto in June', reply: 'Lovely.', timestamp: clock.current }));
		await under.engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'over in the other channel: tomatoes', timestamp: clock.current }));
		await under.engine.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'a quiet word in the DM', timestamp: clock.current }));
	}

	/** Everything a member or the host can call still answers (no throw), and a new turn is recorded. */
	async function stillServes() {
		for (const request of [
			ask({ query: 'beagle Porto' }),
			ask({ channelId: OTHER_CHANNEL }),
			ask({ serverId: null, channelId: DM_CHANNEL }),
			ask({ userId: THEO.id })
		])
			await under.engine.buildContext(request);
		await under.engine.status(MAYA.id, { serverId: GUILD, channelId: CHANNEL });
		await under.engine.exportUser(MAYA.id);
		await under.engine.listTopics(MAYA.id);
		await under.engine.getProfile(MAYA.id);
		await under.engine.sweep();
		clock.advance(60_000);
		expect((await under.engine.recordTurn(turn({ text: 'after the damage: still recorded', timestamp: clock.current }))).written).toBe(true);
		expect(texts(await under.engine.buildContext(ask()))).toContain('after the damage: still recorded');
	}

	describe('GIVEN a short-term entry that does not parse', () => {
		it.each([
			['a string', envelope('garbage')],
			['a number', envelope(42)],
			['a list', envelope([1, 2, 3])],
			['messages that are not a list', 'messages'],
			['a last update that is not a time', 'lastUpdated'],
			['an entry of schema version 0', 'v0'],
			['a value with no envelope', 'not an envelope {']
		])('WHEN it holds %s THEN the context still serves the archive, the next turn records, and the entry is replaced', async (_, damaged) => {
			await converse();
			const entry = (await live().read())!;
			const value =
				damaged === 'messages'
					? envelope({ ...entry, messages: 'x' })
					: damaged === 'lastUpdated'
						? envelope({ ...entry, lastUpdated: 'yesterday' })
						: damaged === 'v0'
							? envelope(entry, 0)
							: damaged;
			await live().damage(value);

			const context = await under.engine.buildContext(ask({ query: 'beagle Biscuit' }));
			// The recent window is gone with the entry; the archive still answers.
			expect(context.blocks.map((block) => block.tier)).not.toContain('recent');
			expect(context.text).toContain('my beagle is called Biscuit');
			await stillServes();
			expect(await live().raw()).toMatchObject({
				v: 1,
				d: { scope: 'server', messages: expect.arrayContaining([expect.objectContaining({ text: 'after the damage: still recorded' })]) }
			});
		});

		it('WHEN only some of its messages are broken THEN the others are still shown, and the next write drops the broken ones', async () => {
			await converse();
			const entry = (await live().read())!;
			await live().damage(
				envelope({
					...entry,
					messages: [entry.messages[0], { id: 7 }, 'junk', null, { ...entry.messages[1], ts: 'noon' }, ...entry.messages.slice(2)]
				})
			);

			const recent = (await under.engine.buildContext(ask())).blocks.find((block) => block.tier === 'recent')!;
			expect(recent.text).toContain('my beagle is called Biscuit');
			expect(recent.text).toContain('we fly to Porto in June');
			await stillServes();
			const rewritten = (await live().raw()) as { d: typeof entry };
			expect(rewritten.d.messages.every((message) => typeof message === 'object' && message !== null && typeof message.ts === 'number')).toBe(
				true
			);
		});
	});

	describe('GIVEN an archive that does not parse', () => {
		it('WHEN a chunk is not a list of messages THEN the context leaves it out, and the next turn records', async () => {
			await converse();
			await liveArchive()
				.chunk(0)
				.damage(envelope({ not: 'a chunk' }));
			const context = await under.engine.buildContext(ask({ query: 'beagle Biscuit' }));
			// From the recent window, not the archive.
			expect(context.blocks.find((block) => block.tier === 'relevant')).toBeUndefined();
			await stillServes();
		});

		it('WHEN some messages of a chunk are broken THEN the others are still found', async () => {
			await converse();
			// Enough later turns that the Biscuit message leaves the recent window and only the archive has it.
			for (let index = 0; index < 12; index++) {
				clock.advance(60_000);
				await under.engine.recordTurn(turn({ text: `small talk ${index}`, reply: `ok ${index}`, timestamp: clock.current }));
			}
			const chunk = (await liveArchive().chunk(0).read())!;
			await liveArchive()
				.chunk(0)
				.damage(envelope(['junk', { id: 'x', text: 5 }, ...chunk, null]));
			// A second engine on the same store reads the chunk afresh (the first keeps its index in memory).
			const { MemoryEngine } = await import('../../src');
			const reader = await MemoryEngine.open({
				env: {},
				now: clock.now,
				config: { storeUrl: under.storeUrl, storeNamespace: under.namespace, ...backend.config, sweepIntervalMinutes: 0 }
			});
			try {
				const relevant = (await reader.buildContext(ask({ query: 'beagle Biscuit' }))).blocks.find((block) => block.tier === 'relevant');
				// The persona's reply is only in the archive (the digest keeps Maya's line, so the relevant tier leaves that out).
				expect(relevant?.text).toContain('Sol: Biscuit!');
			} finally {
				await reader.close();
			}
			await stillServes();
		});

		it('WHEN its head does not parse THEN the context serves the recent window, and the next turn starts the archive again', async () => {
			await converse();
			await liveArchive().head.damage(envelope({ chunks: 'many' }));
			expect(texts(await under.engine.buildContext(ask()))).toContain('we fly to Porto in June');
			await stillServes();
			expect(await liveArchive().head.raw()).toMatchObject({ v: 1, d: { chunks: expect.any(Number) } });
		});
	});

	describe('GIVEN a directory or an author index that does not parse', () => {
		it('WHEN the server directory is damaged THEN other channels are left out until a turn lists them again', async () => {
			await converse();
			expect(texts(await under.engine.buildContext(ask()))).toContain('tomatoes');
			await under.inspect.serverDirectory(GUILD).damage(envelope('garbage'));
			expect(texts(await under.engine.buildContext(ask()))).not.toContain('tomatoes');
			await stillServes();
			await under.engine.recordTurn(turn({ channelId: OTHER_CHANNEL, text: 'back in the other channel', timestamp: clock.current }));
			expect(texts(await under.engine.buildContext(ask()))).toContain('back in the other channel');
		});

		it('WHEN one listing of a directory is broken THEN the others still surface', async () => {
			await converse();
			const directory = (await under.inspect.serverDirectory(GUILD).read())!;
			await under.inspect.serverDirectory(GUILD).damage(envelope({ ...directory, [serverScopeKey('x', 'y')]: { key: 5 }, junk: 'x' }));
			expect(texts(await under.engine.buildContext(ask()))).toContain('tomatoes');
			await stillServes();
		});

		it('WHEN the author index is damaged THEN status, export and erasure still work from the user directory', async () => {
			await converse();
			await under.inspect.authorIndex(MAYA.id).damage(envelope(['not', 'listings']));
			await stillServes();
			expect(JSON.stringify(await under.engine.exportUser(MAYA.id))).toContain('my beagle is called Biscuit');
			await under.engine.clearAll(MAYA.id);
			for (const request of [ask({ userId: THEO.id }), ask({ userId: THEO.id, channelId: OTHER_CHANNEL })])
				expect(texts(await under.engine.buildContext(request))).not.toMatch(/my beagle|tomatoes|we fly to Porto/);
		});
	});

	describe('GIVEN settings that do not parse', () => {
		it.each([
			['garbage', envelope({ privacyLevel: 'banana', crossServerOptIn: 'yes' })],
			['a string', envelope('MINIMAL')],
			['from schema version 0', envelope({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: true }, 0)]
		])(
			'WHEN a member’s settings are %s ' +
				'THEN they read as FULL without cross-server memory, never visible by accident, until the member chooses again',
			async (_, value) => {
				await converse();
				await under.inspect.userSettings(MAYA.id).damage(value);
				// A fresh engine: settings are cached for a few seconds.
				const { MemoryEngine } = await import('../../src');
				const engine = await MemoryEngine.open({
					env: {},
					now: clock.now,
					config: { storeUrl: under.storeUrl, storeNamespace: under.namespace, ...backend.config, sweepIntervalMinutes: 0 }
				});
				try {
					expect(await engine.getUserSettings(MAYA.id)).toMatchObject({ privacyLevel: PrivacyLevel.FULL, crossServerOptIn: false });
					expect((await engine.recordTurn(turn({ text: 'while unreadable' }))).skippedReason).toBe('privacy-full');
					expect(texts(await engine.buildContext(ask({ userId: THEO.id, query: 'beagle' })))).not.toContain('my beagle is called Biscuit');
					await engine.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.MINIMAL });
					expect(await under.inspect.userSettings(MAYA.id).raw()).toMatchObject({
						v: 1,
						d: { privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false }
					});
					clock.advance(1000);
					expect((await engine.recordTurn(turn({ text: 'chose again', timestamp: clock.current }))).written).toBe(true);
				} finally {
					await engine.close();
				}
			}
		);

		it('WHEN a server’s settings do not parse THEN every channel of it reads as private until they are set again', async () => {
			await converse();
			await under.inspect.serverSettings(GUILD).damage(envelope({ privateChannelIds: 'all of them' }));
			const { MemoryEngine } = await import('../../src');
			const engine = await MemoryEngine.open({
				env: {},
				now: clock.now,
				config: { storeUrl: under.storeUrl, storeNamespace: under.namespace, ...backend.config, sweepIntervalMinutes: 0 }
			});
			try {
				expect(texts(await engine.buildContext(ask()))).not.toContain('tomatoes');
				expect(texts(await engine.buildContext(ask()))).toContain('we fly to Porto in June');
				await engine.setServerSettings(GUILD, { privateChannelIds: [] });
				expect(texts(await engine.buildContext(ask()))).toContain('tomatoes');
			} finally {
				await engine.close();
			}
		});
	});

	describe('GIVEN long-term memory that does not parse', () => {
		it('WHEN the profile is damaged THEN it reads as none, and the next change replaces it', async () => {
			await under.engine.updateProfile(MAYA.id, { notes: ['likes tea'] });
			await under.inspect.profile(MAYA.id).damage(envelope({ notes: 'likes tea' }));
			expect(await under.engine.getProfile(MAYA.id)).toBeNull();
			expect((await under.engine.buildContext(ask())).blocks.map((block) => block.tier)).not.toContain('profile');
			await under.engine.updateProfile(MAYA.id, { notes: ['likes coffee'] });
			expect(await under.engine.getProfile(MAYA.id)).toMatchObject({ notes: ['likes coffee'] });
		});

		it('WHEN one topic is damaged THEN the others are still listed and kept', async () => {
			await under.engine.saveTopic(MAYA.id, 'Garden', 'tomatoes');
			const topics = (await under.inspect.topics(MAYA.id).read())!;
			await under.inspect.topics(MAYA.id).damage(envelope({ ...topics, broken: { title: 5 } }));
			expect((await under.engine.listTopics(MAYA.id)).map((topic) => topic.slug)).toEqual(['garden']);
			await under.engine.saveTopic(MAYA.id, 'Trip', 'Porto');
			expect((await under.engine.listTopics(MAYA.id)).map((topic) => topic.slug).sort()).toEqual(['garden', 'trip']);
		});
	});

	describe('GIVEN maintenance records that do not parse', () => {
		it('WHEN registries, the sweep lease and tombstones are garbage THEN a sweep still runs and nothing is lost', async () => {
			await converse();
			await under.inspect.registryBucket('servers', 0).damage(envelope('garbage'));
			await under.inspect.sweepLease().damage(envelope(['nobody']));
			await liveArchive().tombstones.damage(envelope('none'));
			await expect(under.engine.sweep()).resolves.toMatchObject({ entriesDeleted: 0 });
			await stillServes();
			expect(texts(await under.engine.buildContext(ask({ query: 'beagle' })))).toContain('Biscuit');
		});
	});

	it('GIVEN a history carrying a message of another member THEN a damaged settings record of that member keeps their words out', async () => {
		await under.inspect.userSettings(THEO.id).damage(envelope(null));
		await under.engine.recordTurn(turn({ history: [said(THEO, 'theo: a secret'), said(MAYA, 'maya speaks')] }));
		const stored = (await live().read())!.messages.map((message) => message.text);
		expect(stored).not.toContain('theo: a secret');
		expect(stored).toContain('maya speaks');
	});
});
