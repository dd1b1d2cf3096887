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
	// Not minified: a bot developer reads our stack traces and opens node_modules, so the shipped code keeps the sources'
	// names and statements, each under a comment naming its source file. `keepNames` keeps the names bundling changes: a
	// class that refers to itself is emitted as `class _MemoryEngine`, and a second `sweepSlice` as `sweepSlice2`; without it a
	// stack trace and `util.inspect` would show those.
	keepNames: true,
	// No source maps: the code reads as is, and with the sources they hold they would more than double the tarball.
	sourcemap: false,
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
	{ ...common, entry: { testing: 'src/testing.ts' }, format: ['cjs'], dts: true }
]);
