import { buildSync } from 'esbuild';
import { mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { AS_PUBLISHED } from './bundling';

/**
 * The engine as a bot runs it: bundled into one file, as the published package ships it. Under tsx each source
 * file is a module of its own whose imports are read through getters at every use; in the search index's scoring
 * loop that alone took a query from 210 to 530 µs, a figure of the loader, not of the engine.
 */
function load(): typeof import('../src/engine') {
	/* eslint-disable @typescript-eslint/no-var-requires, @typescript-eslint/no-require-imports -- a module chosen while the bench runs */
	// The memory section's child is a bundle of the bench already, with the engine in it.
	if (process.env.BENCH_ENGINE_BUNDLED === '1') return require('../src/engine') as typeof import('../src/engine');
	const outfile = join(__dirname, '..', 'bench-results', `.engine-${process.pid}.cjs`);
	mkdirSync(dirname(outfile), { recursive: true });
	const entry = join(__dirname, '..', 'src', 'engine', 'index.ts');
	buildSync({
		entryPoints: [entry],
		outfile,
		...AS_PUBLISHED,
		logLevel: 'error'
	});
	process.once('exit', () => rmSync(outfile, { force: true }));
	return require(outfile) as typeof import('../src/engine');
	/* eslint-enable @typescript-eslint/no-var-requires, @typescript-eslint/no-require-imports */
}

export const { MemoryEngine, tokenCount } = load();
