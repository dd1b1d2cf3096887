import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli } from '../support/builtCli';
import { MemoryEngine, type MemoryTurn, type StoreInventory, type UserExport } from '../../src';
import { type Backend, backendEnv, backends, openEngine } from '../support/backends';
import { serverScopeKey, userScopeKey } from '../support/store-inspection';

/** A build of its own (see builtCli): test/cli/terminal-safety.test.ts builds into another, and the two may run at once. */
let cliPath: string;

interface Run {
	code: number;
	stdout: string;
	stderr: string;
}

/** Runs the built CLI as a bot's operator would: `node dist/cli.js …`, with MEMORY_* from `env`. */
function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
	const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MEMORY_')));
	return new Promise((resolve) => {
		const child = execFile(
			process.execPath,
			[cliPath, ...args],
			{ cwd: tmpdir(), env: { ...base, ...env }, timeout: 60_000 },
			(error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr })
		);
		// No terminal on the other end: purge must not wait for an answer.
		child.stdin?.end();
	});
}

beforeAll(() => {
	cliPath = builtCli('sapphire-memory-cli-test');
}, 300_000);

describe('sapphire-memory: help and usage', () => {
	it('GIVEN --help THEN the program lists every command and exits 0', async () => {
		const run = await cli(['--help']);

		expect(run.code).toBe(0);
		for (const command of ['stats', 'inspect', 'export', 'purge', 'sweep', 'reseal'])
			expect(run.stdout).toMatch(new RegExp(`^  ${command} `, 'm'));
		expect(run.stdout).toContain('--store <url>');
	});

	it.each(['stats', 'inspect', 'export', 'purge', 'sweep', 'reseal'])(
		'GIVEN %s --help THEN its usage and options are shown, without opening any store',
		async (command) => {
			const run = await cli([command, '--help'], { MEMORY_STORE_URL: 'redis://127.0.0.1:1' });

			expect(run.code).toBe(0);
			expect(run.stdout).toContain(`Usage: sapphire-memory ${command}`);
			expect(run.stdout).toContain('Global options:');
		}
	);

	it('GIVEN help <command> THEN it shows that command’s help', async () => {
		const run = await cli(['help', 'purge']);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain('Usage: sapphire-memory purge (--user <id> | --server <id>) [--yes] [--json]');
	});

	it.each([
		[[], 'Usage: sapphire-memory <command>'],
		[['frobnicate'], 'unknown command "frobnicate".'],
		[['stat'], 'unknown command "stat": did you mean stats?'],
		[['help', 'expotr'], 'unknown command "expotr": did you mean export?'],
		[['stats', '--colour'], 'stats has no option --colour.'],
		[['stats', '--jsn'], 'stats has no option --jsn; did you mean --json?'],
		[['inspect', '--usr', '482910573615284736'], 'inspect has no option --usr; did you mean --user?'],
		[['purge', '--user', '482910573615284736', '-x'], 'purge has no option -x.'],
		[['stats', '--json=yes'], '--json takes no value.'],
		[['export', '--user', '--out', 'x.json'], '--user needs a value, not the option --out.'],
		[['inspect'], 'inspect needs either --user <id> or --channel <id>'],
		[['inspect', '--user', '482910573615284736', '--channel', '810000000000000001'], 'inspect needs either --user <id> or --channel <id>'],
		[['export'], 'export needs --user <id>'],
		[['purge', '--user'], '--user needs a value.'],
		[['inspect', '--channel', '810000000000000001', '--limit', 'many'], '--limit takes a whole number'],
		// parseArgs would read -1 as an option of its own and give advice about its syntax instead.
		[['inspect', '--channel', '810000000000000001', '--limit', '-1'], '--limit takes a whole number, not "-1".'],
		[['inspect', '--user', 'maya'], '--user takes a Discord id (17 to 20 digits, e.g. 482910573615284736), not "maya".'],
		[['inspect', '--channel', '12'], '--channel takes a Discord id'],
		[['export', '--user', '4829105736152847361234'], '--user takes a Discord id'],
		[['purge', '--server', 'my-server', '--yes'], '--server takes a Discord id']
	])('GIVEN the wrong usage %j THEN it exits 2 with a one-line reason', async (args, reason) => {
		const run = await cli(args, { MEMORY_STORE_URL: 'redis://127.0.0.1:1' });

		expect(run.code).toBe(2);
		expect(run.stderr).toContain(reason);
		// In the CLI's own words, never Node's advice about its parser.
		expect(run.stderr).not.toMatch(/^\s+at |Option '|To specify a positional argument/m);
	});

	it('GIVEN --out in a directory that does not exist THEN it exits 1 naming the directory, before the store is read', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-cli-'));
		const out = join(dir, 'exports', 'maya.json');
		const run = await cli(['export', '--user', '482910573615284736', '--out', out], { MEMORY_STORE_URL: 'redis://127.0.0.1:1' });

		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			`sapphire-memory: no directory ${join(dir, 'exports')} to write ${out} in: create it first, or name another --out.\n`
		);
		expect(readdirSync(dir)).toEqual([]);
		rmSync(dir, { recursive: true, force: true });
	});
});

describe('sapphire-memory: a store it cannot use', () => {
	it('GIVEN --store with an unsupported scheme THEN it exits 1 naming --store (and the variable it stands for), with no stack trace', async () => {
		const run = await cli(['stats', '--store', 'ftp://example.org/memory']);

		expect(run.code).toBe(1);
		expect(run.stderr.trim()).toBe(
			'sapphire-memory: Invalid memory configuration: --store="ftp://example.org/memory" (MEMORY_STORE_URL); expected a URL starting with ' +
				'sqlite://, redis://, rediss://, postgres:// or postgresql://.'
		);
	});

	it('GIVEN MEMORY_STORE_URL with an unsupported scheme THEN it exits 1 naming the variable', async () => {
		const run = await cli(['stats'], { MEMORY_STORE_URL: 'ftp://example.org/memory' });

		expect(run.code).toBe(1);
		expect(run.stderr).toContain('Invalid memory configuration: MEMORY_STORE_URL="ftp://example.org/memory"; expected a URL');
	});

	it('GIVEN several bad values, hex and exponent numbers among them THEN one error names each, one per line', async () => {
		const run = await cli(['stats'], {
			MEMORY_CONTEXT_TOKEN_BUDGET: '0x10',
			MEMORY_ARCHIVE_RETENTION_DAYS: '1e1',
			MEMORY_STORE_NAMESPACE: 'a:b'
		});

		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			[
				'sapphire-memory: Invalid memory configuration, 3 settings:',
				'  MEMORY_STORE_NAMESPACE="a:b"; expected 1 to 64 letters, digits, "_" or "-".',
				'  MEMORY_CONTEXT_TOKEN_BUDGET="0x10"; expected a whole number of tokens from 50 to 16000.',
				'  MEMORY_ARCHIVE_RETENTION_DAYS="1e1"; expected a number of days from 0 (archive off) to 3650.',
				''
			].join('\n')
		);
	});

	it('GIVEN a misspelt variable THEN a warning names the closest setting, before the error it explains', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-cli-'));
		const run = await cli(['stats'], { MEMORY_STORE_UR: `sqlite://${join(dir, 'bot.sqlite')}` });

		expect(run.code).toBe(1);
		expect(run.stderr.split('\n')).toEqual([
			'[memory] MEMORY_STORE_UR is not a setting of sapphire-plugin-memory: did you mean MEMORY_STORE_URL? (Ignore this if ' +
				'MEMORY_STORE_UR is meant for something else.)',
			'sapphire-memory: No memory store at ./data/memory.sqlite (the default store); run where the bot runs, or pass --store.',
			''
		]);
		rmSync(dir, { recursive: true, force: true });
	});

	it.each(['redis://127.0.0.1:1', 'postgres://postgres@127.0.0.1:1/memory'])(
		'GIVEN an unreachable store (%s) THEN it exits 1 with one readable line',
		async (url) => {
			const run = await cli(['stats'], { MEMORY_STORE_URL: url });

			expect(run.code).toBe(1);
			// The socket's error, not the adapter's talk of its own options (throwOnConnectError).
			expect(run.stderr).toBe(
				`sapphire-memory: Cannot reach memory store ${url}: connect ECONNREFUSED 127.0.0.1:1. Is the server running there?\n`
			);
		}
	);

	it('GIVEN a PostgreSQL server without the database the URL names THEN it says the database does not exist', async ({ skip }) => {
		const server = process.env.MEMORY_TEST_POSTGRES_URL;
		if (!server) return skip('MEMORY_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)');
		const url = new URL(server);
		url.pathname = '/no_such_memory_database';
		const run = await cli(['stats'], { MEMORY_STORE_URL: url.href });

		expect(run.code).toBe(1);
		expect(run.stderr).toBe(
			`sapphire-memory: Cannot reach memory store ${url.href}: database "no_such_memory_database" does not exist on that server: ` +
				'create it (`createdb <name>`), or name an existing database in the URL.\n'
		);
	});

	it('GIVEN an SQLite file that does not exist THEN it exits 1 and creates nothing', async () => {
		const dir = mkdtempSync(join(tmpdir(), 'memory-cli-'));
		const run = await cli(['stats', '--store', `sqlite://${join(dir, 'nope.sqlite')}`]);

		expect(run.code).toBe(1);
		// Blamed on the flag that named it, not on MEMORY_STORE_URL, which nobody set.
		expect(run.stderr).toBe(
			`sapphire-memory: No memory store at ${join(dir, 'nope.sqlite')} (--store sqlite://${join(dir, 'nope.sqlite')}); run where the bot ` +
				'runs, or pass --store.\n'
		);
		const fromVariable = await cli(['stats'], { MEMORY_STORE_URL: `sqlite://${join(dir, 'nope.sqlite')}` });
		expect(fromVariable.stderr).toContain(`(MEMORY_STORE_URL=sqlite://${join(dir, 'nope.sqlite')})`);
		expect(readdirSync(dir)).toEqual([]);
		rmSync(dir, { recursive: true, force: true });
	});
});

const MAYA = { id: '482910573615284736', name: 'Maya' };
const THEO = { id: '739104826351907842', name: 'Theo' };
const NOVA = { id: '611111111111111111', name: 'Nova' };
const GUILD = '800000000000000001';
const HARBOUR = '810000000000000001';
const OTHER = '810000000000000002';
const MAYA_DM = '820000000000000001';
const HOUR = 3_600_000;

let ids = 1_000_000_000_000_000n;
const id = () => String((ids += 1n));

function turn(who: { id: string; name: string }, serverId: string | null, channelId: string, text: string, reply: string, at: number): MemoryTurn {
	return {
		userId: who.id,
		userName: who.name,
		serverId,
		channelId,
		history: [{ role: 'user', authorId: who.id, authorName: who.name, text, messageId: id(), timestamp: at }],
		responses: [{ text: reply, personaId: 'sol', personaName: 'Sol', messageId: id() }],
		timestamp: at
	};
}

describe.each(backends)('sapphire-memory on $name', (backend: Backend) => {
	if (backend.skipReason) {
		it(`skipped: ${backend.skipReason}`, ({ skip }) => skip(backend.skipReason!));
		return;
	}
	let opened: Awaited<ReturnType<typeof openEngine>>;
	let env: Record<string, string>;
	const t0 = Date.now() - HOUR;

	/**
	 * Maya and Theo in #harbour, Maya in her DM, Nova in #other two days ago (expired now, for the
	 * sweep); Maya has a profile and a topic note.
	 */
	beforeAll(async () => {
		opened = await openEngine(backend, { config: { sweepIntervalMinutes: 0 } });
		const memory = opened.engine;
		await memory.recordTurn(turn(MAYA, GUILD, HARBOUR, 'we sail from the harbour on June 3', 'June 3 at the harbour, noted.', t0));
		await memory.recordTurn(turn(THEO, GUILD, HARBOUR, 'I will bring the boat', 'Theo brings the boat.', t0 + 60_000));
		await memory.recordTurn(turn(MAYA, null, MAYA_DM, 'between us: I am nervous', 'It will go well.', t0 + 120_000));
		await memory.updateProfile(MAYA.id, { preferences: { pronouns: 'she/her' }, notes: ['sails on weekends'] });
		await memory.saveTopic(MAYA.id, 'Harbour trip', 'June 3, Theo brings the boat.');
		await memory.close();
		const past = await MemoryEngine.open({
			env: {},
			now: () => Date.now() - 48 * HOUR,
			config: { storeUrl: opened.storeUrl, storeNamespace: opened.namespace, ...backend.config, sweepIntervalMinutes: 0 }
		});
		await past.recordTurn(turn(NOVA, GUILD, OTHER, 'an old remark', 'An old answer.', Date.now() - 48 * HOUR));
		await past.close();
		env = { MEMORY_STORE_URL: opened.storeUrl, MEMORY_STORE_NAMESPACE: opened.namespace, ...backendEnv(backend) };
	}, 60_000);

	afterAll(() => opened?.dispose());

	const json = async <T>(args: string[]): Promise<T> => {
		const run = await cli([...args, '--json'], env);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		return JSON.parse(run.stdout) as T;
	};

	it('GIVEN stats --json THEN every kind of key is counted, with the archive’s span and the store’s size', async () => {
		const inventory = await json<StoreInventory>(['stats']);

		expect(inventory).toMatchObject({ storage: backend.storage, namespace: opened.namespace, lastSweepAt: null });
		// User scopes: Maya's and Theo's in #harbour, Maya's DM, Nova's in #other; server scopes: #harbour and #other.
		expect(inventory.keys).toMatchObject({
			shortTermUser: 4,
			shortTermServer: 2,
			profiles: 1,
			topics: 1,
			userIndexes: 3,
			serverIndexes: 1,
			authorIndexes: 3,
			other: 0
		});
		expect(inventory.keys.registries).toBeGreaterThan(0);
		// Two messages a turn; one archive per live scope (#harbour, #other, Maya's DM), a marker per message.
		expect(inventory.archive).toMatchObject({ scopes: 3, messages: 8 });
		expect(inventory.archive.oldest).toBeLessThan(t0);
		expect(inventory.archive.newest).toBeGreaterThanOrEqual(t0 + 120_000);
		expect(inventory.keys.archiveMarkers).toBe(8);
		expect(inventory.keys.archiveHeads).toBe(3);
		expect(inventory.totalKeys).toBe(Object.values(inventory.keys).reduce((sum, value) => sum + value, 0));
		expect(inventory.dataBytes).toBeGreaterThan(1000);
		if (backend.name === 'redis') expect(inventory.storageBytes).toBeNull();
		else expect(inventory.storageBytes!.total).toBeGreaterThan(0);
	});

	it('GIVEN stats THEN the same is printed as text', async () => {
		const run = await cli(['stats'], env);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`Store: ${backend.storage}, namespace "${opened.namespace}"`);
		expect(run.stdout).toMatch(/^Archive: 8 messages in 3 scopes, oldest \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC, newest /m);
		expect(run.stdout).toMatch(/^ {2}short-term entries, user scope +4$/m);
		expect(run.stdout).toMatch(/^ {2}profiles +1$/m);
	});

	it('GIVEN inspect --user THEN the member’s export reads as text: conversations, shared messages, archive, profile, topics', async () => {
		const run = await cli(['inspect', '--user', MAYA.id], env);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`User ${MAYA.id} · privacy minimal · cross-server memory off`);
		expect(run.stdout).toContain('Short-term conversations (2):');
		expect(run.stdout).toContain(`server ${GUILD} · channel ${HARBOUR} · persona sol`);
		expect(run.stdout).toMatch(/\] Maya: we sail from the harbour on June 3$/m);
		expect(run.stdout).toMatch(/\] Sol \(persona sol\): It will go well\.$/m);
		// Hers, and Sol's replies to her (one in #harbour, one in the DM).
		expect(run.stdout).toContain('Archive: 4 messages');
		expect(run.stdout).toContain('pronouns: she/her');
		expect(run.stdout).toContain('harbour-trip "Harbour trip"');
		// Nothing of Theo's.
		expect(run.stdout).not.toContain('bring the boat\n');
		expect(run.stdout).not.toContain('Theo (');
	});

	it('GIVEN inspect --user --json THEN it is the export with the archive summed up', async () => {
		const inspection = await json<{
			userId: string;
			shortTerm: unknown[];
			sharedShortTerm: unknown[];
			archive: { messages: number };
			topics: unknown[];
		}>(['inspect', '--user', MAYA.id]);

		expect(inspection).toMatchObject({ userId: MAYA.id, archive: { messages: 4 } });
		expect(inspection.shortTerm).toHaveLength(2);
		expect(inspection.sharedShortTerm).toHaveLength(2);
		expect(inspection.topics).toHaveLength(1);
	});

	it('GIVEN inspect --channel --server THEN the channel’s live memory shows every member’s messages and its archive', async () => {
		const run = await cli(['inspect', '--channel', HARBOUR, '--server', GUILD, '--limit', '2'], env);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`The live memory of channel ${HARBOUR} in server ${GUILD}: 1 scope`);
		expect(run.stdout).toContain(serverScopeKey(GUILD, HARBOUR, 'sol'));
		expect(run.stdout).toContain('Recent messages (4)');
		expect(run.stdout).toMatch(/\] Theo \(739104826351907842\): I will bring the boat$/m);
		expect(run.stdout).toMatch(/Archive: 4 messages, oldest .+; the newest 2:/);
	});

	it('GIVEN inspect --channel of a DM THEN the member’s scope is shown; --json gives the same', async () => {
		const inspection = await json<{
			scopes: { key: string; scope: string; userId: string; entry: { messages: unknown[] }; archive: { messages: number } }[];
		}>(['inspect', '--channel', MAYA_DM]);

		expect(inspection.scopes).toHaveLength(1);
		expect(inspection.scopes[0]).toMatchObject({
			key: userScopeKey(MAYA.id, MAYA_DM, 'sol'),
			scope: 'user',
			userId: MAYA.id,
			archive: { messages: 2 }
		});
		expect(inspection.scopes[0]!.entry.messages).toHaveLength(2);
	});

	it('GIVEN stats with a mistyped --namespace that holds nothing THEN it says so instead of printing an empty report', async () => {
		const run = await cli(['stats', '--namespace', `${opened.namespace}x`], env);

		expect(run.code).toBe(1);
		expect(run.stdout).toBe('');
		expect(run.stderr).toBe(
			`sapphire-memory: The namespace "${opened.namespace}x" holds no keys in this ${backend.storage} store: nothing is stored there yet, or ` +
				'the namespace is mistyped (--namespace, MEMORY_STORE_NAMESPACE; a bot uses "memory" unless it sets one).\n'
		);
	});

	it('GIVEN inspect --channel nobody used THEN it says nothing is remembered', async () => {
		const run = await cli(['inspect', '--channel', '899999999999999999'], env);

		expect(run.code).toBe(0);
		expect(run.stdout.trim()).toBe('Nothing is remembered of channel 899999999999999999.');
	});

	it('GIVEN export --user THEN it prints memory.exportUser’s JSON; with --out it writes the file', async () => {
		const run = await cli(['export', '--user', THEO.id], env);
		const exported = JSON.parse(run.stdout) as UserExport;

		expect(run.code).toBe(0);
		expect(exported).toMatchObject({ schemaVersion: 1, userId: THEO.id, profile: null, topics: [] });
		expect(exported.sharedShortTerm.map((message) => message.text)).toEqual(['I will bring the boat', 'Theo brings the boat.']);
		expect(JSON.stringify(exported)).not.toContain('June 3');

		const dir = mkdtempSync(join(tmpdir(), 'memory-cli-'));
		const written = await cli(['export', '--user', THEO.id, '--out', join(dir, 'theo.json')], env);
		expect(written.code).toBe(0);
		expect(JSON.parse(readFileSync(join(dir, 'theo.json'), 'utf8'))).toMatchObject({
			userId: THEO.id,
			sharedShortTerm: exported.sharedShortTerm
		});
		rmSync(dir, { recursive: true, force: true });
	});

	it('GIVEN sweep THEN what expired (Nova’s conversation of two days ago) is deleted and told', async () => {
		const result = await json<{ entriesDeleted: number; durationMs: number }>(['sweep']);

		expect(result.entriesDeleted).toBe(2);
		const again = await cli(['sweep'], env);
		expect(again.code).toBe(0);
		expect(again.stdout).toMatch(/^ {2}short-term entries deleted +0$/m);
		expect((await json<StoreInventory>(['stats'])).lastSweepAt).toEqual(expect.any(Number));
	});

	// `script` gives the CLI a terminal, as an operator's shell would.
	it('GIVEN purge on a terminal WHEN the operator does not answer "yes" THEN it exits 1 and erases nothing', async (context) => {
		if (backend.name !== 'sqlite') context.skip('the terminal prompt is tried once, on SQLite: it is the same on every backend');
		if (!existsSync('/usr/bin/script')) context.skip('/usr/bin/script, which gives the CLI a terminal, is not installed');
		const run = await new Promise<Run>((resolve) => {
			const child = execFile(
				'/usr/bin/script',
				['-qec', `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)} purge --user ${MAYA.id}`, '/dev/null'],
				{ env: { ...process.env, ...env }, timeout: 60_000 },
				(error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr })
			);
			child.stdin?.end('no\n');
		});

		expect(run.stdout).toMatch(
			new RegExp(
				[
					String.raw`Erase everything stored about user 482910573615284736 \(2 short-term conversations, 2 archived messages, `,
					String.raw`a profile, 1 topic notes\).*Type "yes" to confirm:`
				].join('')
			)
		);
		expect(run.stdout).toContain('Nothing was erased.');
		expect(run.code).toBe(1);
		expect((await json<{ shortTerm: unknown[] }>(['inspect', '--user', MAYA.id])).shortTerm).toHaveLength(2);
	});

	it('GIVEN purge without --yes and without a terminal THEN it refuses (exit 2) and erases nothing', async () => {
		const run = await cli(['purge', '--user', MAYA.id], env);

		expect(run.code).toBe(2);
		expect(run.stderr).toContain('pass --yes');
		expect((await json<{ shortTerm: unknown[] }>(['inspect', '--user', MAYA.id])).shortTerm).toHaveLength(2);
	});

	it('GIVEN purge --yes THEN everything of the member is erased, what went is printed, and another member’s data stays', async () => {
		const run = await cli(['purge', '--user', MAYA.id, '--yes'], env);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`Erased everything of user ${MAYA.id}:`);
		expect(run.stdout).toMatch(/^ {2}own short-term entries deleted +2$/m);
		expect(run.stdout).toMatch(/^ {2}profile deleted +yes$/m);
		const maya = JSON.parse((await cli(['export', '--user', MAYA.id], env)).stdout) as UserExport;
		expect(maya).toMatchObject({ shortTerm: [], sharedShortTerm: [], archive: [], profile: null, topics: [] });
		const theo = JSON.parse((await cli(['export', '--user', THEO.id], env)).stdout) as UserExport;
		expect(theo.sharedShortTerm.map((message) => message.text)).toEqual(['I will bring the boat', 'Theo brings the boat.']);
		const channel = await cli(['inspect', '--channel', HARBOUR, '--server', GUILD], env);
		expect(channel.stdout).toContain('I will bring the boat');
		// Her words are gone, and the persona's reply to her with them, as in /session clear scope:all.
		expect(channel.stdout).not.toContain('we sail from the harbour');
		expect(channel.stdout).not.toContain('June 3 at the harbour, noted.');
	});

	it('GIVEN purge --server --yes THEN everything of the server is erased, and --server with --user is refused', async () => {
		const run = await cli(['purge', '--server', GUILD, '--yes'], env);

		expect(run.code).toBe(0);
		expect(run.stdout).toContain(`Erased everything of server ${GUILD}:`);
		expect(run.stdout).toMatch(/^ {2}channels +2$/m);
		const theo = JSON.parse((await cli(['export', '--user', THEO.id], env)).stdout) as UserExport;
		expect(theo).toMatchObject({ sharedShortTerm: [], archive: [] });
		expect(theo.shortTerm.filter((conversation) => conversation.serverId === GUILD)).toEqual([]);
		expect((await cli(['inspect', '--channel', HARBOUR, '--server', GUILD], env)).stdout).not.toContain('boat');
		expect((await cli(['purge', '--server', GUILD, '--user', MAYA.id, '--yes'], env)).code).toBe(2);
	});
});

describe.each(backends)('sapphire-memory reseal on $name', (backend: Backend) => {
	if (backend.skipReason) {
		it(`skipped: ${backend.skipReason}`, ({ skip }) => skip(backend.skipReason!));
		return;
	}
	const oldKey = 'a1'.repeat(32);
	const newKey = Buffer.alloc(32, 42).toString('base64');
	let opened: Awaited<ReturnType<typeof openEngine>>;
	let env: Record<string, string>;

	beforeAll(async () => {
		opened = await openEngine(backend, { config: { sweepIntervalMinutes: 0, encryptionKey: oldKey } });
		await opened.engine.recordTurn(turn(MAYA, GUILD, HARBOUR, 'the sealed harbour plan', 'Sealed, noted.', Date.now() - HOUR));
		await opened.engine.close();
		env = { MEMORY_STORE_URL: opened.storeUrl, MEMORY_STORE_NAMESPACE: opened.namespace };
	}, 60_000);

	afterAll(() => opened?.dispose());

	it('GIVEN the store’s key THEN stats reads it; without it, or with another, the CLI says the store is encrypted', async () => {
		const stats = await cli(['stats', '--json'], { ...env, MEMORY_ENCRYPTION_KEY: oldKey });
		expect(stats.code).toBe(0);
		expect((JSON.parse(stats.stdout) as StoreInventory).archive.messages).toBe(2);
		const without = await cli(['stats'], env);
		expect(without.code).toBe(1);
		expect(without.stderr).toContain('This memory store is encrypted: set MEMORY_ENCRYPTION_KEY');
		const other = await cli(['stats'], { ...env, MEMORY_ENCRYPTION_KEY: newKey });
		expect(other.code).toBe(1);
		expect(other.stderr).toContain('MEMORY_ENCRYPTION_KEY does not open this memory store');
		expect(other.stderr).not.toContain(newKey);
	});

	it('GIVEN a new key with the old one as previous THEN reseal seals everything again, and the old key can be dropped', async () => {
		const rotating = { ...env, MEMORY_ENCRYPTION_KEY: newKey, MEMORY_ENCRYPTION_PREVIOUS_KEYS: oldKey };
		const run = await cli(['reseal'], rotating);
		expect(run.stderr).toBe('');
		expect(run.code).toBe(0);
		expect(run.stdout).toMatch(/^ {2}values sealed again +\d+$/m);
		expect(run.stdout).toMatch(/^ {2}values that did not open \(left as they are\) +0$/m);
		const again = JSON.parse((await cli(['reseal', '--json'], rotating)).stdout) as { resealed: number; damaged: number };
		expect(again).toMatchObject({ resealed: 0, damaged: 0 });
		const exported = await cli(['export', '--user', MAYA.id], { ...env, MEMORY_ENCRYPTION_KEY: newKey });
		expect(exported.code).toBe(0);
		expect(exported.stdout).toContain('the sealed harbour plan');
		expect((await cli(['stats'], { ...env, MEMORY_ENCRYPTION_KEY: oldKey })).code).toBe(1);
	});
});
