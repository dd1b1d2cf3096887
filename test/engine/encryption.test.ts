import { randomBytes } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type MemoryConfig, MemoryEngine, PrivacyLevel } from '../../src';
import { Sealer } from '../../src/engine/store/Sealer';
import { backends, TestClock } from '../support/backends';
import { holdersOf, rawRows, StoreInspection } from '../support/store-inspection';
import { ask, CHANNEL, DM_CHANNEL, GUILD, MAYA, said, snowflake, THEO, turn } from '../support/turns';

const KEY = randomBytes(32).toString('base64');
const NEW_KEY = randomBytes(32).toString('hex');
const WRONG_KEY = randomBytes(32).toString('base64url');

/** Text that must never be readable in the raw store while it is sealed. */
const MARKERS = ['SEALED-TEXT', 'SEALED-NAME', 'SEALED-REPLY', 'SEALED-SUMMARY', 'SEALED-PREF', 'SEALED-TOPIC', 'SEALED-DM'];

/** The id a key's values name (see Sealer). */
function keyIdOf(key: string): string {
	return Sealer.fromConfig({ encryptionKey: key, encryptionPreviousKeys: null })!.keyId;
}

/** Encryption at rest: every value sealed with AES-256-GCM before it reaches keyv, on every backend. */
describe.each(backends)('encryption at rest, on $name', (backend) => {
	const clock = new TestClock();
	let location: { storeUrl: string; namespace: string; cleanup: () => void };
	const open: MemoryEngine[] = [];

	beforeEach((context) => {
		if (backend.skipReason) context.skip(backend.skipReason);
		clock.current = new TestClock().current;
		location = backend.url();
	});

	afterEach(async () => {
		for (const engine of open.splice(0)) await engine.close().catch(() => undefined);
		if (backend.name !== 'sqlite' && location) {
			const inspect = await StoreInspection.open(location);
			await inspect.clear();
			await inspect.close();
		}
		location?.cleanup();
	});

	async function engine(config: Partial<MemoryConfig> = {}, warnings?: string[]): Promise<MemoryEngine> {
		const opened = await MemoryEngine.open({
			env: {},
			now: clock.now,
			...(warnings ? { logger: { ...console, warn: (message: string) => void warnings.push(message) } } : {}),
			config: { storeUrl: location.storeUrl, storeNamespace: location.namespace, sweepIntervalMinutes: 0, ...config }
		});
		open.push(opened);
		return opened;
	}

	async function closeAll(): Promise<void> {
		for (const engine of open.splice(0)) await engine.close();
	}

	/** Fills every kind of value: entries, archive, digest, directories, indexes, settings, profile, topics, a DM. */
	async function fill(memory: MemoryEngine): Promise<void> {
		for (let index = 0; index < 14; index++) {
			const who = index % 2 === 0 ? { ...MAYA, name: 'SEALED-NAME Maya' } : THEO;
			const history = [said(who, `SEALED-TEXT ${index} we ship crates to Porto on June ${index + 1}`, clock.current, snowflake())];
			await memory.recordTurn(turn({ who, history, reply: `SEALED-REPLY ${index} noted`, timestamp: clock.current }));
			clock.advance(60_000);
		}
		await memory.updateShortTermMemory({ userId: MAYA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' }, 'SEALED-SUMMARY crates');
		await memory.updateProfile(MAYA.id, { preferences: { drink: 'SEALED-PREF tea' } });
		await memory.saveTopic(MAYA.id, 'SEALED-TOPIC trip', 'a note');
		await memory.setUserSettings(THEO.id, { crossServerOptIn: true });
		await memory.setServerSettings(GUILD, { privateChannelIds: ['999'] });
		await memory.recordTurn(turn({ serverId: null, channelId: DM_CHANNEL, text: 'SEALED-DM my locker', timestamp: clock.current }));
	}

	/** What members see: contexts of both members in the guild and Maya's DM, and Maya's export. */
	async function everythingShown(memory: MemoryEngine): Promise<string> {
		const contexts = await Promise.all([
			memory.buildContext(ask({ query: 'crates Porto June' })),
			memory.buildContext(ask({ userId: THEO.id, query: 'crates' })),
			memory.buildContext(ask({ serverId: null, channelId: DM_CHANNEL, query: 'locker' }))
		]);
		const exported = await memory.exportUser(MAYA.id);
		return JSON.stringify([contexts.map((context) => context.text), { ...exported, exportedAt: 0 }]);
	}

	/** The seals of every raw row: the key id each names, or "plain" for a value stored as it is. */
	async function sealsOfRows(): Promise<Set<string>> {
		const seals = new Set<string>();
		for (const row of await rawRows(location)) {
			// An SQLite row is keyv's serialized row (`{ value, expires }`); a server's, the envelope keyv read.
			const value = JSON.parse(row.slice(row.indexOf(' ') + 1)) as { value?: { s?: string }; s?: string } | string[];
			// A set's members are ids, which stay readable as the keys do (docs/storage.md): no value of a member's.
			if (Array.isArray(value)) continue;
			const envelope = 'value' in value ? value.value : value;
			seals.add(typeof envelope?.s === 'string' ? envelope.s.split('.')[0]! : 'plain');
		}
		return seals;
	}

	it('THEN no row, nor any byte of an SQLite file, holds what members wrote, and everything reads back through the key', async () => {
		const memory = await engine({ encryptionKey: KEY });
		await fill(memory);
		const shown = await everythingShown(memory);
		for (const marker of MARKERS) expect(shown).toContain(marker);
		for (const marker of MARKERS) expect(await holdersOf(location, marker), marker).toEqual([]);
		expect(await sealsOfRows()).toEqual(new Set([keyIdOf(KEY)]));

		await closeAll();
		const reopened = await engine({ encryptionKey: KEY });
		expect(await everythingShown(reopened)).toBe(shown);
		expect((await reopened.status(MAYA.id)).hasProfile).toBe(true);
	});

	it('WHEN the store is opened without its key, or with another THEN start-up fails with INVALID_CONFIG, and nothing is written', async () => {
		await fill(await engine({ encryptionKey: KEY }));
		await closeAll();
		const rows = await rawRows(location);
		await expect(engine()).rejects.toMatchObject({
			code: 'INVALID_CONFIG',
			message: expect.stringMatching(/encrypted: set MEMORY_ENCRYPTION_KEY/)
		});
		await expect(engine({ encryptionKey: WRONG_KEY })).rejects.toMatchObject({
			code: 'INVALID_CONFIG',
			message: expect.stringMatching(/MEMORY_ENCRYPTION_KEY does not open this memory store/)
		});
		expect((await rawRows(location)).sort()).toEqual(rows.sort());
	});

	it('WHEN the key changes and the store is resealed THEN every value is sealed with the new key, and the old one can be dropped', async () => {
		await fill(await engine({ encryptionKey: KEY }));
		const shown = await everythingShown(open[0]!);
		await closeAll();

		const rotating = await engine({ encryptionKey: NEW_KEY, encryptionPreviousKeys: KEY });
		expect(await everythingShown(rotating)).toBe(shown);
		// A bot writes meanwhile, with the new key.
		await rotating.recordTurn(turn({ text: 'SEALED-TEXT written while rotating', timestamp: clock.current }));
		expect(await sealsOfRows()).toEqual(new Set([keyIdOf(KEY), keyIdOf(NEW_KEY)]));
		const result = await rotating.reseal();
		expect(result.resealed).toBeGreaterThan(20);
		expect(result.damaged).toBe(0);
		expect(await sealsOfRows()).toEqual(new Set([keyIdOf(NEW_KEY)]));
		expect(await rotating.reseal()).toMatchObject({ resealed: 0, damaged: 0 });
		const after = await everythingShown(rotating);
		await closeAll();

		const rotated = await engine({ encryptionKey: NEW_KEY });
		expect(await everythingShown(rotated)).toBe(after);
		await closeAll();
		await expect(engine({ encryptionKey: KEY })).rejects.toMatchObject({ code: 'INVALID_CONFIG' });
	});

	it('WHEN a plain store is given a key THEN start-up seals it whole before serving, and says so', async () => {
		await fill(await engine());
		const shown = await everythingShown(open[0]!);
		await closeAll();
		expect(await holdersOf(location, 'SEALED-TEXT')).not.toEqual([]);

		const warnings: string[] = [];
		const sealed = await engine({ encryptionKey: KEY }, warnings);
		// Sealed before the first call: no row holds a member's words, and every row names the key.
		for (const marker of MARKERS) expect(await holdersOf(location, marker), marker).toEqual([]);
		expect(await sealsOfRows()).toEqual(new Set([keyIdOf(KEY)]));
		expect(warnings).toEqual([expect.stringMatching(/store that was not sealed: its \d+ values were sealed before it served any\.$/)]);
		expect(await everythingShown(sealed)).toBe(shown);
		expect(await sealed.reseal()).toMatchObject({ resealed: 0, damaged: 0 });
		await closeAll();

		// Started again: the store is sealed, and nothing more is said.
		warnings.length = 0;
		const again = await engine({ encryptionKey: KEY }, warnings);
		expect(await everythingShown(again)).toBe(shown);
		expect(warnings).toEqual([]);
	});

	it('WHEN a new store is opened with a key THEN start-up says every value will be sealed', async () => {
		const warnings: string[] = [];
		await engine({ encryptionKey: KEY }, warnings);
		expect(warnings).toEqual([expect.stringMatching(/holds nothing yet: every value is sealed\.$/)]);
	});

	it(
		'WHEN someone without the key writes plain values into a sealed store THEN none is served: ' +
			'read as damaged, counted, left unsealed by reseal, replaced by the next write',
		async () => {
			const memory = await engine({ encryptionKey: KEY });
			await fill(memory);
			const clean = await everythingShown(memory);
			await closeAll();
			const inspect = await StoreInspection.open(location, Sealer.fromConfig({ encryptionKey: KEY, encryptionPreviousKeys: null }));
			try {
				// Well-formed values, as the engine would write them without a key: Maya's profile, and the channel's entry
				// with a message put in her name.
				const profile = (await inspect.profile(MAYA.id).read())!;
				await inspect.profile(MAYA.id).damage({ v: 1, d: { ...profile, preferences: { drink: 'PLANTED-PREF poison' } } });
				const entry = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!;
				const planted = { ...entry.messages.at(-1)!, text: 'PLANTED-TEXT Sol decided to post her address' };
				await inspect.serverEntry(GUILD, CHANNEL, 'sol').damage({ v: 1, d: { ...entry, messages: [...entry.messages, planted] } });
				expect(await holdersOf(location, 'PLANTED-PREF')).not.toEqual([]);
			} finally {
				await inspect.close();
			}

			const reopened = await engine({ encryptionKey: KEY });
			const before = reopened.stats().damagedValues;
			const shown = await everythingShown(reopened);
			expect(shown).not.toContain('PLANTED');
			expect(shown).not.toContain('SEALED-PREF');
			expect((await reopened.getProfile(MAYA.id)) ?? null).toBeNull();
			expect(reopened.stats().damagedValues).toBeGreaterThanOrEqual(before + 2);
			// reseal does not launder them: they stay as they were, counted as damaged.
			const result = await reopened.reseal();
			expect(result.damaged).toBe(2);
			expect(await holdersOf(location, 'PLANTED-PREF')).not.toEqual([]);
			expect(await everythingShown(reopened)).not.toContain('PLANTED');
			// The next writes replace them, sealed.
			await reopened.updateProfile(MAYA.id, { preferences: { drink: 'SEALED-PREF tea' } });
			await reopened.recordTurn(turn({ text: 'SEALED-TEXT after the plant', timestamp: clock.current }));
			// (An overwritten SQLite row may linger in the file's free pages until its next rewrite, as any overwritten value.)
			const rows = await rawRows(location);
			for (const marker of ['PLANTED-PREF', 'PLANTED-TEXT'])
				expect(
					rows.filter((row) => row.includes(marker)),
					marker
				).toEqual([]);
			expect(await sealsOfRows()).toEqual(new Set([keyIdOf(KEY)]));
			expect(clean).toContain('SEALED-PREF');
		}
	);

	it('WHEN a sealed value is changed, cut, or copied under another key THEN it reads as missing (counted), never as garbage', async () => {
		const memory = await engine({ encryptionKey: KEY });
		await fill(memory);
		const inspect = await StoreInspection.open(location);
		try {
			// Maya's profile, sealed for her key, copied under Theo's: it does not open there.
			const mayas = await inspect.profile(MAYA.id).raw();
			await inspect.profile(THEO.id).damage(mayas);
			// One character of the server entry's ciphertext changed.
			const entry = inspect.serverEntry(GUILD, CHANNEL, 'sol');
			const raw = (await entry.raw()) as { v: number; s: string };
			const flipped = raw.s.slice(0, -3) + (raw.s.at(-3) === 'A' ? 'B' : 'A') + raw.s.slice(-2);
			await entry.damage({ ...raw, s: flipped });
		} finally {
			await inspect.close();
		}
		await closeAll();
		const reopened = await engine({ encryptionKey: KEY });
		const before = reopened.stats().damagedValues;
		expect(await reopened.getProfile(THEO.id)).toBeNull();
		const context = await reopened.buildContext(ask({ query: 'crates' }));
		expect(context.blocks.find((block) => block.tier === 'recent')).toBeUndefined();
		expect(reopened.stats().damagedValues).toBeGreaterThanOrEqual(before + 2);
		// The next turn writes the entry again.
		await reopened.recordTurn(turn({ text: 'after the damage', timestamp: clock.current }));
		expect((await reopened.buildContext(ask())).text).toContain('after the damage');
		expect((await reopened.getProfile(MAYA.id))?.preferences.drink).toBe('SEALED-PREF tea');
	});

	it('WHEN a plain value planted in a sealed store is due THEN the sweep deletes it, as any damaged entry', async () => {
		const memory = await engine({ encryptionKey: KEY });
		await fill(memory);
		await closeAll();
		const inspect = await StoreInspection.open(location, Sealer.fromConfig({ encryptionKey: KEY, encryptionPreviousKeys: null }));
		try {
			const entry = (await inspect.serverEntry(GUILD, CHANNEL, 'sol').read())!;
			await inspect.serverEntry(GUILD, CHANNEL, 'sol').damage({ v: 1, d: { ...entry, summary: 'PLANTED-SUMMARY' } });
		} finally {
			await inspect.close();
		}
		const reopened = await engine({ encryptionKey: KEY });
		expect((await rawRows(location)).filter((row) => row.includes('PLANTED-SUMMARY'))).not.toEqual([]);
		// Past the summary's lifetime, which any entry's listing ends by: the sweep reads the entry, finds nothing it may use, deletes it.
		clock.advance(reopened.config.summaryTtlHours * 3_600_000 + 60_000);
		await reopened.sweep();
		expect((await rawRows(location)).filter((row) => row.includes('PLANTED-SUMMARY'))).toEqual([]);
	});

	it('WHEN a member is erased from a sealed store THEN no row holds her words, sealed or not (erasure sees through the seal)', async () => {
		const memory = await engine({ encryptionKey: KEY });
		await fill(memory);
		await memory.setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
		const inspect = await StoreInspection.open(location, Sealer.fromConfig({ encryptionKey: KEY, encryptionPreviousKeys: null }));
		try {
			expect(await inspect.keysHolding('SEALED-NAME')).toEqual([]);
			expect(await inspect.keysHolding('SEALED-PREF')).toEqual([]);
			expect((await inspect.keysHolding('SEALED-TEXT')).length).toBeGreaterThan(0);
		} finally {
			await inspect.close();
		}
	});
});
