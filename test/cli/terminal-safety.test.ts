/**
 * What the CLI prints from the store reaches an operator's terminal: a member who writes escape sequences (a clipboard
 * write, a screen clear, a hidden hyperlink), a carriage return that overwrites the line, bidirectional controls or line
 * breaks that print fake lines must get nothing interpreted and no line of their own. Every output is read back through
 * a parser of what a terminal acts on (ESC and C1 introducers, BEL, CR, bidirectional controls, separators).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtCli } from '../support/builtCli';
import { MemoryEngine } from '../../src';
import { CHANNEL, GUILD, said, snowflake, turn } from '../support/turns';

/** A build of its own (see builtCli): test/cli/cli.test.ts builds into another, and the two may run at once. */
let cliPath: string;

const ESC = '\u001B';
const BEL = '\u0007';
/** Every way of acting on a terminal the test writes into the store. */
const HOSTILE = [
	`${ESC}]52;c;cm0gLXJmIH4=${BEL}`, // OSC 52: writes the clipboard
	`${ESC}[2J${ESC}[H`, // clears the screen
	`${ESC}]8;;https://evil.example${BEL}click here${ESC}]8;;${BEL}`, // a hidden hyperlink
	'all fine\rOVERWRITTEN', // a carriage return over the line
	'\n    [2026-01-01 00:00:00 UTC] Sol (persona sol): the admin password is hunter2', // a fake message line
	'\nProfile (updated 2026-01-01 00:00:00 UTC):', // a fake header
	'\u009B2J', // C1 CSI: the same screen clear in one character
	'\u202Egnp.exe', // right-to-left override
	'one\u2028two\u2029three\u0085four', // separators
	`${ESC}P+q${ESC}\\` // DCS
].join(' · ');

/** What a terminal would act on: escape sequences (ESC or a C1 control), BEL, CR, bidirectional controls, separators. */
const INTERPRETED = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069\u2028\u2029]/u;

function cli(args: string[], storeUrl: string): Promise<{ code: number; stdout: string; stderr: string }> {
	const base = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MEMORY_')));
	return new Promise((resolve) => {
		execFile(
			process.execPath,
			[cliPath, ...args],
			{ cwd: tmpdir(), env: { ...base, MEMORY_STORE_URL: storeUrl }, timeout: 60_000 },
			(error, stdout, stderr) => resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr })
		);
	});
}

const MEMBER = { id: '482910573615284736', name: `Maya${ESC}[2J\u202E` };
let dir: string;
let storeUrl: string;

beforeAll(async () => {
	cliPath = builtCli('sapphire-memory-cli-escapes');
	dir = mkdtempSync(join(tmpdir(), 'memory-cli-escapes-'));
	storeUrl = `sqlite://${join(dir, 'memory.sqlite')}`;
	const engine = await MemoryEngine.open({ env: {}, config: { storeUrl, sweepIntervalMinutes: 0 } });
	for (let at = 0; at < 14; at++) {
		await engine.recordTurn({
			...turn({ who: MEMBER, timestamp: Date.now() }),
			history: [said(MEMBER, `${at} ${HOSTILE}`, Date.now() - 1_000, snowflake())],
			responses: [{ text: `noted ${HOSTILE}`, personaId: 'sol', personaName: `Sol${ESC}]0;pwned${BEL}`, messageId: snowflake() }]
		});
	}
	await engine.updateShortTermMemory(
		{ userId: MEMBER.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol' },
		{ summary: `summary ${HOSTILE}`, categories: { [`cat${ESC}[31m`]: `category ${HOSTILE}` } }
	);
	// A preference holds 200 characters: the clipboard write and the fake line.
	const short = `${ESC}]52;c;cm0gLXJmIH4=${BEL}\n    [2026-01-01 00:00:00 UTC] Sol (persona sol): the admin password is hunter2`;
	await engine.updateProfile(MEMBER.id, { preferences: { [`pref${ESC}[1m`]: short }, notes: [`note ${HOSTILE}`], tags: [`tag${BEL}`] });
	await engine.saveTopic(MEMBER.id, `topic ${ESC}[5m`, `topic note ${HOSTILE}`);
	await engine.close();
}, 300_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('GIVEN a store holding escape sequences, bidirectional controls and line breaks in every text a member controls', () => {
	it.each([
		['inspect --user', ['inspect', '--user', MEMBER.id]],
		['inspect --user --json', ['inspect', '--user', MEMBER.id, '--json']],
		['inspect --channel', ['inspect', '--channel', CHANNEL]],
		['inspect --channel --json', ['inspect', '--channel', CHANNEL, '--json']],
		['export', ['export', '--user', MEMBER.id]]
	])('WHEN an operator runs %s THEN the terminal is handed nothing to act on', async (_, args) => {
		const run = await cli(args, storeUrl);
		expect(run.code, run.stderr).toBe(0);
		expect(run.stdout).toContain('hunter2');
		const acted = [...run.stdout].filter((char) => char !== '\n' && INTERPRETED.test(char));
		expect(acted.map((char) => `U+${char.codePointAt(0)!.toString(16).padStart(4, '0')}`)).toEqual([]);
	});

	it('WHEN an operator inspects as text THEN no stored text starts a line: the fake lines stay inside the message’s line', async () => {
		for (const args of [
			['inspect', '--user', MEMBER.id],
			['inspect', '--channel', CHANNEL]
		]) {
			const { stdout } = await cli(args, storeUrl);
			const lines = stdout.split('\n');
			// Every line holding the fake message line holds it after a label the CLI wrote, on the line of a real one.
			const forged = lines.filter((line) => line.includes('the admin password is hunter2'));
			expect(forged.length).toBeGreaterThan(0);
			for (const line of forged) expect(line).not.toMatch(/^\s*\[2026-01-01 00:00:00 UTC\] Sol/);
			expect(lines.filter((line) => line.startsWith('Profile (updated 2026-01-01'))).toEqual([]);
			expect(stdout).toContain('\\u{202E}');
		}
	});
});
