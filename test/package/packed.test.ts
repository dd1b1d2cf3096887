import { Extractor, ExtractorConfig, type ExtractorMessage } from '@microsoft/api-extractor';
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const root = join(__dirname, '../..');
const work = mkdtempSync(join(tmpdir(), 'memory-packed-'));

/** What `npm pack --json` says of the tarball. */
interface Packed {
	filename: string;
	size: number;
	unpackedSize: number;
	files: { path: string; size: number }[];
}

let packed: Packed;
const bots = { cjs: join(work, 'cjs'), esm: join(work, 'esm') };

/** The README's marker for its bot snippet: the code block after it is pasted into each bot as src/readme.ts. */
const SNIPPET_MARKER = '<!-- compiles as pasted:';

/** The README's bot snippet, as a reader would copy it: the first TypeScript code block after the marker. */
function readmeSnippet(): string {
	const readme = readFileSync(join(root, 'README.md'), 'utf8');
	const marker = readme.indexOf(SNIPPET_MARKER);
	const block = /^```ts\n([\s\S]*?)^```$/m.exec(readme.slice(marker));
	if (marker < 0 || !block) throw new Error(`README.md has no \`${SNIPPET_MARKER} …\` comment followed by a \`\`\`ts code block`);
	return block[1]!;
}

/**
 * Installs the tarball into a bot shaped like sapphiredev/examples' with-typescript-starter (test/package/bots), with the
 * bot's own discord.js and Sapphire, as a bot developer would; packages come from npm's cache where it has them.
 * better-sqlite3 is built once already (its install script compiles it here, which takes a minute): its build is copied.
 * The README's snippet goes in as src/readme.ts, compiled with the rest of the bot.
 */
async function installBot(kind: keyof typeof bots): Promise<void> {
	const dir = bots[kind];
	cpSync(join(__dirname, 'bots', kind), dir, { recursive: true });
	writeFileSync(join(dir, 'src/readme.ts'), readmeSnippet());
	const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
	const devDependencies = { '@types/node': version('@types/node'), '@types/ws': version('@types/ws') };
	const dependencies = {
		'@sapphire/framework': version('@sapphire/framework'),
		'discord.js': version('discord.js'),
		'sapphire-plugin-memory': `file:${join(work, packed.filename)}`
	};
	writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...manifest, dependencies, devDependencies }, null, '\t'));
	await run('npm', ['install', '--prefer-offline', '--ignore-scripts', '--no-audit', '--no-fund'], { cwd: dir, timeout: 180_000 });
	cpSync(join(root, 'node_modules/better-sqlite3/build'), join(dir, 'node_modules/better-sqlite3/build'), { recursive: true });
}

/** The version this repository develops against, so the bots install what the suites run with. */
function version(name: string): string {
	return JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')).version;
}

/** Runs one of the bot's compiled entries with `env`; resolves with its exit code and output. */
async function startBot(kind: keyof typeof bots, env: Record<string, string>, entry = 'dist/index.js') {
	const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(MEMORY_|SHORT_TERM_MEMORY_)/.test(name)));
	try {
		const { stdout, stderr } = await run(process.execPath, [entry], { cwd: bots[kind], env: { ...base, ...env }, timeout: 60_000 });
		return { code: 0, stdout, stderr };
	} catch (error) {
		const { code, stdout, stderr } = error as { code: number; stdout: string; stderr: string };
		return { code, stdout, stderr };
	}
}

beforeAll(async () => {
	// `npm pack` runs the package's prepack script, which builds it: what a publish would ship.
	const { stdout } = await run('npm', ['pack', '--json', '--pack-destination', work], { cwd: root, timeout: 300_000, maxBuffer: 16 << 20 });
	[packed] = JSON.parse(stdout.slice(stdout.indexOf('[')));
	await Promise.all([installBot('cjs'), installBot('esm')]);
}, 480_000);

// Two bots' node_modules: on a busy machine their removal takes longer than the default hook timeout.
afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000);

describe('GIVEN the package as npm packs it', () => {
	it('THEN it holds the built entries, the declarations, the README, CHANGELOG and LICENSE, and nothing else', () => {
		const paths = packed.files.map((file) => file.path.replace(/chunk-\w+/, 'chunk-*')).sort();
		expect(paths).toEqual(
			[
				'CHANGELOG.md',
				'LICENSE',
				'README.md',
				'dist/chunk-*.js',
				'dist/chunk-*.mjs',
				'dist/cli.js',
				'dist/engine.d.ts',
				'dist/engine.js',
				'dist/index.d.mts',
				'dist/index.d.ts',
				'dist/index.js',
				'dist/index.mjs',
				'dist/register.d.mts',
				'dist/register.d.ts',
				'dist/register.js',
				'dist/register.mjs',
				'dist/testing.d.ts',
				'dist/testing.js',
				'package.json'
			].sort()
		);
	});

	// The size is a budget that catches what would bloat the package at once (a bundled dependency, a source map, the
	// sources, a stray file: each tens of kB or more), with room for the engine's own growth. The code ships not minified.
	it('THEN the tarball is under 400 kB, with no source map and no source file', () => {
		console.log(`[package] ${packed.filename}: ${packed.size} bytes packed, ${packed.unpackedSize} unpacked, ${packed.files.length} files`);
		expect(packed.size).toBeLessThan(400_000);
		expect(packed.files.filter((file) => /\.map$|\.ts$/.test(file.path) && !file.path.endsWith('.d.ts'))).toEqual([]);
	});

	// The report is the record of what the package root exports (docs/engine.md, "Public API"): it changes only on purpose.
	it('THEN its root exports what etc/sapphire-plugin-memory.api.md records, each declaration with its doc comment', () => {
		const messages: string[] = [];
		const result = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(join(root, 'api-extractor.json')), {
			localBuild: false,
			messageCallback: (message: ExtractorMessage) => {
				if (message.logLevel === 'error' || message.logLevel === 'warning') messages.push(message.formatMessageWithLocation(root));
				message.handled = true;
			}
		});

		expect(messages, 'API Extractor found problems in the built declarations (an undocumented export fails here)').toEqual([]);
		expect(
			result.apiReportChanged,
			'The package root exports something other than etc/sapphire-plugin-memory.api.md records. If the change is meant, run ' +
				'`npm run api` and commit the report with it.'
		).toBe(false);
		expect(result.succeeded).toBe(true);
	}, 60_000);

	it('THEN its package.json runs nothing on install, and names the repository, the home page and the optional backends', () => {
		const manifest = JSON.parse(readFileSync(join(bots.cjs, 'node_modules/sapphire-plugin-memory/package.json'), 'utf8'));

		expect(Object.keys(manifest.scripts).filter((name) => /^(pre|post)?(install|prepare)$/.test(name))).toEqual([]);
		expect(manifest.scripts.prepack).toBe('npm run build');
		expect(manifest.repository.url).toMatch(/^git\+https:\/\//);
		expect(manifest.homepage).toMatch(/^https:\/\//);
		for (const name of ['@keyv/redis', '@keyv/postgres', '@keyv/sqlite']) {
			expect(manifest.dependencies[name]).toBeUndefined();
			expect(manifest.peerDependenciesMeta[name]).toEqual({ optional: true });
		}
	});
});

describe.each(['cjs', 'esm'] as const)('GIVEN a %s bot shaped like the Sapphire starter, with the tarball installed', (kind) => {
	/** The compiler's complaints about the bot, one per line (tsc exits non-zero on any, in a declaration file it loads too). */
	let complaints: string[];
	beforeAll(async () => {
		const tsc = await run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', bots[kind]], { timeout: 180_000 }).catch(
			(error: { stdout: string }) => ({ stdout: error.stdout })
		);
		complaints = tsc.stdout.split('\n').filter(Boolean);
	}, 180_000);

	it('THEN it type-checks with skipLibCheck off, from the register import and the client options alone', () => {
		expect(complaints.filter((line) => !line.startsWith('src/readme.ts'))).toEqual([]);
		expect(existsSync(join(bots[kind], 'dist/index.js'))).toBe(true);
	});

	it("THEN the README's bot snippet, pasted as is, type-checks under the starter's strict options", () => {
		expect(complaints.filter((line) => line.startsWith('src/readme.ts'))).toEqual([]);
		expect(existsSync(join(bots[kind], 'dist/readme.js'))).toBe(true);
	});

	it('THEN it logs in to the fake Discord from sapphire-plugin-memory/testing, answers /session status and erases a member', async () => {
		const store = join(work, `${kind}.sqlite`);
		const bot = await startBot(kind, { MEMORY_STORE_URL: `sqlite://${store}` });

		expect(bot.stderr).toBe('');
		expect(bot.code).toBe(0);
		const { callback, answer, budget, erased } = JSON.parse(bot.stdout.trim().split('\n').at(-1)!);
		expect(callback.data.flags).toBe(64);
		expect(answer.content).toContain('**Your memory**');
		expect(answer.content).toContain('Storage: sqlite');
		expect(budget).toBe(1200);
		// The log's copy after the turn and the erasure's file rewrite, each in a worker started from the installed package,
		// logged no error (stderr).
		expect(typeof erased).toBe('number');
		// MEMORY_STORE_URL decided where memory went: the README's snippet no longer hard-codes it.
		expect(existsSync(store)).toBe(true);
	}, 60_000);

	it('THEN only the SQLite store is installed, and a redis:// URL stops start-up naming the package to install', async () => {
		const installed = (name: string) => existsSync(join(bots[kind], 'node_modules', name));
		expect(installed('better-sqlite3')).toBe(true);
		expect(['@keyv/redis', '@keyv/postgres', '@keyv/sqlite', '@redis/client', 'pg', 'sqlite3'].filter(installed)).toEqual([]);

		const bot = await startBot(kind, { MEMORY_STORE_URL: 'redis://127.0.0.1:6379' });

		expect(bot.code).toBe(1);
		expect(bot.stderr).toContain('A redis:// store needs the package @keyv/redis, which is not installed: run `npm install @keyv/redis`.');
	}, 60_000);

	// The README's `void client.login(…)`: the rejection is unhandled, so Node prints the error and exits. It first shows the
	// line of our code that threw, which is why the package ships not minified: a minified line is many kB long.
	it("THEN a bad setting makes the README's bot exit with a short error naming the variable, its stack reaching the login call", async () => {
		// A variable the snippet's options do not override (its contextTokenBudget would win over MEMORY_CONTEXT_TOKEN_BUDGET).
		const bot = await startBot(kind, { MEMORY_ARCHIVE_RETENTION_DAYS: 'abc', DISCORD_TOKEN: 'not-a-token' }, 'dist/readme.js');
		const lines = bot.stderr.trimEnd().split('\n');
		const message = lines.findIndex((line) => line.startsWith('MemoryError: '));

		expect(bot.code).toBe(1);
		expect(lines[message], bot.stderr).toContain('MEMORY_ARCHIVE_RETENTION_DAYS="abc"');
		// Before the message, Node shows the line that threw: the file and line, the source line, its caret, a blank line.
		expect(message, bot.stderr).toBeLessThanOrEqual(4);
		expect(lines.filter((line) => line.length > 300)).toEqual([]);
		expect(
			lines.some((line) => /^\s+at .*dist\/readme\.js:\d+:\d+\)?$/.test(line)),
			bot.stderr
		).toBe(true);
	}, 60_000);
});
