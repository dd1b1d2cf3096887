// `npm run build` (and so `npm pack`): empties dist/, builds it with tsup (see tsup.config.ts, whose builds run side by
// side, so none of them may clean), then does to the declarations what the bundler cannot:
// - the root entry's import the engine's declarations, which ship once as dist/engine.d.ts; a relative import in an
//   ES module's declarations names its file, so `./engine` becomes `./engine.js` in both formats;
// - `/register` imports the root entry, which holds the module augmentation (ClientOptions.memory, Container.memory),
//   so a bot that imports only `sapphire-plugin-memory/register` gets its types (as the official Sapphire plugins do).
import { readFile, rm, writeFile } from 'node:fs/promises';
import { build } from 'tsup';

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
