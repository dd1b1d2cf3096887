import { resolve } from 'node:path';
import { defineConfig, type Options } from 'tsup';

const engineEntry = resolve(__dirname, 'src/engine');

/**
 * The engine (src/engine, no discord.js or Sapphire) ships once, as CommonJS, and both builds of the plugin
 * load that one file: an ESM bot and a CommonJS one share one engine, one `MemoryError`, and the package
 * stays small. The plugin layer ships in both formats, so each loads the host's own Sapphire and discord.js.
 */
const sharedEngine: NonNullable<Options['esbuildPlugins']>[number] = {
	name: 'shared-engine',
	setup(build) {
		build.onResolve({ filter: /engine$/ }, (args) =>
			resolve(args.resolveDir, args.path) === engineEntry ? { path: './engine.js', external: true } : undefined
		);
	}
};

const common = {
	target: 'node20',
	outDir: 'dist',
	// No source maps: they would be most of the package (the shipped code is not minified, so a stack trace reads as is).
	sourcemap: false,
	// Without the indentation and line breaks, with shorter syntax and local names, the package is less than half its size;
	// `keepNames` keeps every function's and class's own name, so a stack trace still names each one. The package test holds
	// the tarball under 170 kB (some declarations ship without comments: see scripts/build.mjs).
	minifyWhitespace: true,
	minifySyntax: true,
	minifyIdentifiers: true,
	keepNames: true,
	// The host's own discord.js and Sapphire must be the ones the pieces register with.
	external: [/^discord\.js$/, /^@sapphire\//, /^@keyv\//, 'keyv', 'zod', 'ws']
} satisfies Options;

export default defineConfig([
	{ ...common, entry: { engine: 'src/engine/index.ts' }, format: ['cjs'], dts: true },
	{
		...common,
		// One shared chunk per format, so `/register` and the root share one set of pieces.
		entry: { index: 'src/index.ts', register: 'src/register.ts' },
		format: ['cjs', 'esm'],
		splitting: true,
		esbuildPlugins: [sharedEngine]
	},
	// Their declarations, with the engine's left out as well (scripts/build.mjs points them at engine.d.ts).
	{
		...common,
		entry: { index: 'src/index.ts', register: 'src/register.ts' },
		format: ['cjs', 'esm'],
		dts: { only: true },
		external: [...common.external, /(^|\/)engine$/]
	},
	// `cli` is the `sapphire-memory` bin; tsup keeps its shebang and marks the file executable.
	{ ...common, entry: { cli: 'src/ops/cli.ts' }, format: ['cjs'], esbuildPlugins: [sharedEngine] },
	// The fake Discord for bots' own tests: one CommonJS file, which ESM imports as well (it shares no state with the bot).
	{ ...common, entry: { testing: 'src/testing.ts' }, format: ['cjs'], dts: true, keepNames: false }
]);
