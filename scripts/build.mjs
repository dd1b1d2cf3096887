// `npm run build` (and so `npm pack`): empties dist/, builds it with tsup (see tsup.config.ts, whose builds run side by
// side, so none of them may clean), then does to the declarations what the bundler cannot:
// - the root entry's import the engine's declarations, which ship once as dist/engine.d.ts; a relative import in an
//   ES module's declarations names its file, so `./engine` becomes `./engine.js` in both formats;
// - `/register` imports the root entry, which holds the module augmentation (ClientOptions.memory, Container.memory),
//   so a bot that imports only `sapphire-plugin-memory/register` gets its types (as the official Sapphire plugins do).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'tsup';
import ts from 'typescript';

async function rewrite(file, change) {
	const text = await readFile(file, 'utf8');
	const changed = change(text);
	if (changed === text) throw new Error(`${file} came out of tsup in an unexpected shape: check tsup.config.ts`);
	await writeFile(file, changed);
}

await rm('dist', { recursive: true, force: true });
await build({ silent: true });

for (const file of ['dist/index.d.ts', 'dist/index.d.mts']) {
	await rewrite(file, (text) => text.replace(/from '(?:\.\.?\/)+(?:src\/)?engine'/g, "from './engine.js'"));
}
await rewrite('dist/register.d.ts', (text) => `import './index.js';\n${text}`);
await rewrite('dist/register.d.mts', (text) => `import './index.mjs';\n${text}`);

// Declarations documented at length in docs/ ship without their comments, which keeps the package within the budget its
// test holds it to: the testing entry (docs/testing.md), and what the engine declares for the repository's tools and tests
// but the package root does not export (src/index.ts): the settings table (docs/configuration.md), the key layout
// (docs/storage.md), the digest's fold (docs/summaries.md) and the budget's shares (docs/context.md). Every declaration the
// root exports keeps its documentation (the API report's check in test/package/packed.test.ts fails on one without).
const keep = ts.createPrinter();
const strip = ts.createPrinter({ removeComments: true });
async function withoutComments(file, names) {
	const source = ts.createSourceFile(file, await readFile(file, 'utf8'), ts.ScriptTarget.Latest, true);
	const nameOf = (node) => node.name?.text ?? node.declarationList?.declarations[0]?.name.text;
	const printed = source.statements.map((node) => (!names || names.has(nameOf(node)) ? strip : keep).printNode(ts.EmitHint.Unspecified, node, source));
	await writeFile(file, `${printed.join('\n')}\n`);
}
await withoutComments('dist/testing.d.ts');
await withoutComments(
	'dist/engine.d.ts',
	new Set(['MemoryEnvironment', 'Keys', 'ARCHIVE_KEY_WORDS', 'ArchiveMarker', 'foldIntoDigest', 'BudgetPolicy'])
);
