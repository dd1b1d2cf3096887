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

	it('THEN no file imports itself back through others (no import circles)', () => {
		const circles = files.filter((file) => reach(file).has(file)).map(name);
		expect(circles).toEqual([]);
	});
});
