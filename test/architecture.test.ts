import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The house rules of docs/engine.md, read from the code's own imports: the engine knows nothing of Discord,
 * the plugin and the operator tools, the read path never loads the background worker, and no file imports
 * itself back through others.
 */

const ROOT = resolve(__dirname, '..');
const FOLDERS = ['src', 'commands', 'listeners'];

function sourceFiles(folder: string): string[] {
	return readdirSync(folder).flatMap((name) => {
		const path = join(folder, name);
		if (statSync(path).isDirectory()) return sourceFiles(path);
		return path.endsWith('.ts') && !path.endsWith('.d.ts') ? [path] : [];
	});
}

const files = FOLDERS.flatMap((folder) => sourceFiles(join(ROOT, folder)));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'";]*?from\s+'([^']+)'|(?:^|\n)\s*import\s+'([^']+)'|import\('([^']+)'\)/g;

/** What each file imports: relative imports resolved to files of the tree, packages by name. */
const imports = new Map(
	files.map((file) => {
		const specifiers = [...readFileSync(file, 'utf8').matchAll(IMPORT)].map((match) => match[1] ?? match[2] ?? match[3]!);
		const resolved = specifiers.map((specifier) => {
			if (!specifier.startsWith('.')) return specifier;
			const base = resolve(dirname(file), specifier);
			return [`${base}.ts`, join(base, 'index.ts')].find((candidate) => files.includes(candidate)) ?? base;
		});
		return [file, resolved] as const;
	})
);

/** The engine's parts by floor, the ground first, as docs/engine.md lists them from the top down. */
const ENGINE_FLOORS = [
	['schemas', 'errors.ts', 'ReplyCalls.ts', 'closestName.ts'],
	['format', 'store'],
	['config.ts', 'MemoryEnvironment.ts', 'readSetting.ts', 'settingRules.ts', 'privacy', 'MemoryLogger.ts'],
	['records'],
	['archive', 'unknownSettings.ts', 'settingWarnings.ts', 'MemoryEngineOptions.ts'],
	['ledger'],
	['maintenance', 'account', 'summaries'],
	['stats', 'capture', 'context'],
	['EngineParts.ts'],
	['MemoryEngine.ts'],
	['index.ts']
];

const name = (file: string) => relative(ROOT, file);
const under = (file: string, folder: string) => name(file).startsWith(`${folder}/`);

/** Every file `file` loads, directly or through others. */
function reach(file: string, seen = new Set<string>()): Set<string> {
	for (const target of imports.get(file) ?? []) {
		if (seen.has(target) || !imports.has(target)) continue;
		seen.add(target);
		reach(target, seen);
	}
	return seen;
}

describe('GIVEN the source tree', () => {
	it('THEN it holds the files the rules are about', () => {
		expect(files.length).toBeGreaterThan(100);
		expect(files.some((file) => name(file) === 'src/engine/MemoryEngine.ts')).toBe(true);
	});

	it('THEN nothing under src/engine imports discord.js, Sapphire, src/plugin or src/ops', () => {
		const breaches = files
			.filter((file) => under(file, 'src/engine'))
			.flatMap((file) =>
				imports
					.get(file)!
					.filter((target) => /^(discord\.js|@sapphire\/)/.test(target) || under(target, 'src/plugin') || under(target, 'src/ops'))
					.map((target) => `${name(file)} -> ${target.startsWith('/') ? name(target) : target}`)
			);
		expect(breaches).toEqual([]);
	});

	it('THEN the read path (src/engine/context) never loads the background summarizer', () => {
		const loaded = [...reach(join(ROOT, 'src/engine/context/buildContext.ts'))].map(name);
		expect(loaded).toContain('src/engine/summaries/servable.ts');
		expect(loaded.filter((file) => /BackgroundSummarizer|requestSummary|chatCompletions/.test(file))).toEqual([]);
	});

	it('THEN each part of the engine imports only parts on its floor or below (docs/engine.md)', () => {
		const floors = ENGINE_FLOORS.map((floor) => floor.map((part) => `src/engine/${part}`));
		const floorOf = (file: string) => floors.findIndex((floor) => floor.some((part) => name(file) === part || under(file, part)));
		const engine = files.filter((file) => under(file, 'src/engine') && !file.endsWith('.d.ts'));
		expect(engine.filter((file) => floorOf(file) < 0).map(name)).toEqual([]);
		const upward = engine.flatMap((file) =>
			imports
				.get(file)!
				.filter((target) => imports.has(target) && under(target, 'src/engine') && floorOf(target) > floorOf(file))
				.map((target) => `${name(file)} -> ${name(target)}`)
		);
		expect(upward).toEqual([]);
	});

	it('THEN only the records layer opens the store: nothing outside src/engine/store and src/engine/records imports the store', () => {
		const outside = files.filter((file) => !under(file, 'src/engine/store') && !under(file, 'src/engine/records'));
		const breaches = outside.flatMap((file) =>
			imports
				.get(file)!
				.filter((target) => under(target, 'src/engine/store'))
				.map((target) => `${name(file)} -> ${name(target)}`)
		);
		expect(breaches).toEqual([]);
	});

	it('THEN the key layout is spelt in at most six files, all in the store or the records layer (the rest name records)', () => {
		const naming = files.filter((file) => /\bKeys\.\w+\(/.test(readFileSync(file, 'utf8'))).map(name);
		expect(naming.length).toBeGreaterThan(0);
		expect(naming.length).toBeLessThanOrEqual(6);
		expect(naming.filter((file) => !file.startsWith('src/engine/store/') && !file.startsWith('src/engine/records/'))).toEqual([]);
	});

	it('THEN no source file is over 300 lines (small files, one idea each), and the facade stays a front door', () => {
		const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').length - 1;
		const long = files.filter((file) => lineCount(file) > 300).map((file) => `${name(file)}: ${lineCount(file)} lines`);
		expect(long).toEqual([]);
		// One doc line and one delegation per public call, a blank line between them: no rule lives in the facade.
		const facade = readFileSync(join(ROOT, 'src/engine/MemoryEngine.ts'), 'utf8');
		const calls = [...facade.matchAll(/\n\tpublic (?:async )?(\w+)\(.*\{\n([^]*?)\n\t\}/g)].map(
			([, call, body]) => [call!, body!.split('\n').length] as const
		);
		expect(calls.length).toBeGreaterThan(30);
		expect(calls.filter(([call, lines]) => lines > 1 && call !== 'close')).toEqual([]);
	});

	it('THEN no file imports itself back through others (no import circles)', () => {
		const circles = files.filter((file) => reach(file).has(file)).map(name);
		expect(circles).toEqual([]);
	});
});
