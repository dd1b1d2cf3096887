import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { MemoryEngine, PrivacyLevel } from '../../src';
import { JUN, MAYA, THEO } from '../../examples/demo/world';
import { keysLeftAfterErasure } from '../support/store-inspection';

const ROOT = resolve(__dirname, '../..');
const FILE = resolve(ROOT, 'data/demo-memory.sqlite');
const OPERATOR_STORE = join(tmpdir(), `memory-demo-operator-${process.pid}.sqlite`);
/** What Theo says in the demo before he runs `/session clear scope:all`. */
const THEOS_WORDS = [
	"I'm hosting board game night on Friday at 7pm, bring snacks",
	"we're planning a trip to Porto: flights booked for June 3",
	'any ideas for a cooperative one?'
];

describe('npm run demo: the example bot on the fake Discord, with the embedded SQLite store', () => {
	let run: { status: number | null; stdout: string; stderr: string; ms: number };

	beforeAll(() => {
		const started = Date.now();
		// What `npm run demo` runs, without npm's banner; stdout is a pipe, so no colors.
		const child = spawnSync(process.execPath, ['--import', 'tsx', 'examples/demo/main.ts'], {
			cwd: ROOT,
			encoding: 'utf8',
			timeout: 60_000,
			// A store of the operator's: the demo must leave it alone, and say so.
			env: { ...process.env, FORCE_COLOR: undefined, MEMORY_STORE_URL: `sqlite://${OPERATOR_STORE}` }
		});
		run = { status: child.status, stdout: child.stdout, stderr: child.stderr, ms: Date.now() - started };
	}, 70_000);

	it('GIVEN MEMORY_STORE_URL THEN the demo says it uses its own file, and never creates the one named', () => {
		expect(run.stdout).toContain('MEMORY_STORE_URL is set, and left alone: the demo uses only its own file, data/demo-memory.sqlite');
		expect(existsSync(OPERATOR_STORE)).toBe(false);
	});

	it('THEN it exits 0 in well under a minute, with plain text on a pipe', () => {
		expect(run.status, run.stderr).toBe(0);
		expect(run.ms).toBeLessThan(30_000);
		expect(run.stdout).not.toContain('\u001b[');
		expect(run.stdout).toMatch(/^Done in \d+\.\d s\.$/m);
	});

	it('THEN each turn shows what was captured, into which scopes', () => {
		const captured = run.stdout.match(/^ {2}✔ captured \(\d+ history messages? \+ 1 reply\) → .+$/gm) ?? [];

		expect(captured.length).toBe(9);
		expect(captured[0]).toContain('user scope Maya · #general · sol; server scope #general · sol');
		// A DM has no server scope.
		expect(captured).toContainEqual(expect.stringMatching(/→ user scope Maya · DM Maya · sol$/));
		expect(run.stdout).toContain('not addressed to Sol: no reply and no turn');
	});

	it('THEN the member who went FULL is answered but skipped, with the reason', () => {
		expect(run.stdout).toContain('first deletes everything it holds about you');
		expect(run.stdout).toContain('everything memory held about you is gone, and your privacy level is full: you are invisible');
		expect(run.stdout).toMatch(
			new RegExp(
				[
					String.raw`Jun: Sol, between us: my phone number is 555-0100\n(?:.*\n)*? {2}Sol: .+\n`,
					String.raw` {2}✘ skipped: privacy-full: the member chose \/session privacy level:full`
				].join('')
			)
		);
		expect(run.stdout).toContain('turns captured: 9; skipped: 1 privacy-full');
	});

	it('THEN the context injected before each reply is shown block by block, with token counts', () => {
		expect(run.stdout).toContain('context injected: empty (nothing remembered here yet), 0 tokens');
		expect(run.stdout).toMatch(/context injected: \d+ blocks?, \d+ tokens/);
		for (const tier of ['recent', 'summary', 'nudge', 'profile']) expect(run.stdout).toMatch(new RegExp(`\\[${tier}\\] \\d+ tokens`));
		// Cross-channel memory, and the opted-in member's server memory in her DM.
		expect(run.stdout).toContain('<#general>, just now:');
		expect(run.stdout).toContain('<#general> (another server), just now:');
		expect(run.stdout).toContain('Sol: Maya, you told me: “hi! we adopted a beagle called Biscuit last week”');
	});

	it('THEN the stand-in LLM uses the memory tools through the plugin handlers', () => {
		expect(run.stdout).toMatch(/\[nudge\] \d+ tokens\n.*Call update_short_term_memory/);
		expect(run.stdout).toMatch(/tool call: update_short_term_memory \{"summary":.+\}\n\s+result: \{"ok":true,"stored":\d+/);
		expect(run.stdout).toMatch(/tool call: remember \{"kind":"note","text":"I'm vegetarian too"\}\n\s+result: \{"ok":true/);
	});

	it('THEN /session status, export and clear scope:all print their answers', () => {
		expect(run.stdout).toMatch(
			/\/session status \(only Theo sees the answer\)\n.*Your memory\n.*Privacy level: minimal\n.*Short-term conversations: 2/
		);
		expect(run.stdout).toMatch(new RegExp(`attachment memory-export-${MAYA.id}\\.json\\.gz \\(\\d+ bytes\\): 3 conversations`));
		expect(run.stdout).toContain('Done: everything memory held about you is gone');
		expect(run.stdout).toContain("Theo's export after a turn whose history held his messages: 0 conversations, 0 messages, profile: none");
	});

	it(
		[
			'THEN the SQLite file is where the demo says, and holds nothing of',
			'Theo but his erasure barrier, nor anything Jun said, before or while FULL'
		].join(' '),
		async () => {
			expect(run.stdout).toContain('memory file: data/demo-memory.sqlite');
			expect(existsSync(FILE)).toBe(true);
			const db = new Database(FILE, { readonly: true });
			const rows = db.prepare('SELECT key, value FROM keyv').all() as { key: string; value: string }[];
			db.close();

			// Registries list ids the sweep visits; settings keep the barrier that stops re-fetched history coming back.
			const theos = rows.filter((row) => row.key.includes(THEO.id) || row.value.includes(THEO.id)).map((row) => row.key);
			for (const key of theos) expect(key).toMatch(keysLeftAfterErasure(THEO.id));
			// Jun chose FULL after asking about Ribeira: that went too.
			for (const words of [...THEOS_WORDS, '555-0100', 'a good vegetarian place near Ribeira'])
				expect(
					rows.filter((row) => row.value.includes(JSON.stringify(words).slice(1, -1))).map((row) => row.key),
					words
				).toEqual([]);
			expect(rows.some((row) => row.value.includes('we adopted a beagle called Biscuit'))).toBe(true);

			const memory = await MemoryEngine.open({ storeUrl: `sqlite://${FILE}`, config: { sweepIntervalMinutes: 0 } });
			try {
				expect(await memory.exportUser(THEO.id)).toMatchObject({
					shortTerm: [],
					sharedShortTerm: [],
					archive: [],
					profile: null,
					topics: []
				});
				expect((await memory.getUserSettings(JUN.id)).privacyLevel).toBe(PrivacyLevel.FULL);
				expect((await memory.exportUser(MAYA.id)).profile?.notes).toContain("I'm vegetarian too");
			} finally {
				await memory.close();
			}
		}
	);
});
