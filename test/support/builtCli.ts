import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');

/** The newest modification time of the sources the build reads. */
function newestSource(): number {
	const files = readdirSync(join(root, 'src'), { recursive: true, withFileTypes: true })
		.filter((entry) => entry.isFile())
		.map((entry) => join(entry.parentPath, entry.name));
	return Math.max(...[...files, join(root, 'package.json'), join(root, 'tsup.config.ts')].map((file) => statSync(file).mtimeMs));
}

/**
 * The path of this checkout's CLI, built with the package's own tsup config when a source is newer than the build. Each
 * suite builds into a folder of its own under node_modules/.cache, named after the suite and the checkout: `dist/` is
 * rebuilt by other suites (test/package), two suites may build at once, and checkouts that share one node_modules
 * (git worktrees) must each run their own sources.
 */
export function builtCli(suite: string): string {
	const checkout = createHash('sha256').update(root).digest('hex').slice(0, 12);
	const outDir = join(root, `node_modules/.cache/${suite}-${checkout}`);
	const cliPath = join(outDir, 'cli.js');
	if (!existsSync(cliPath) || statSync(cliPath).mtimeMs < newestSource())
		execFileSync('npx', ['tsup', '--silent', '--out-dir', outDir], { cwd: root, stdio: 'pipe' });
	return cliPath;
}
