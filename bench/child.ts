import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { progress } from './log';
import { errorText } from './sections/shared';
import { AS_PUBLISHED } from './bundling';

/** A measurement that runs in a process of its own, and how it is started. */
export interface ChildProgram {
	modulePath: string;
	execArgv: string[];
	runtime: string;
	cleanup: () => void;
}

/**
 * A measurement's entry (a file of bench/sections), bundled with esbuild (packages left as they are) to run under plain
 * node: the tsx loader alone adds some 45 MiB and compiles each module on first use. Falls back to tsx when esbuild fails.
 */
export async function childProgram(entryName: string): Promise<ChildProgram> {
	const entry = join(__dirname, 'sections', entryName);
	// In the git-ignored results directory, inside the project so the packages it requires resolve.
	const outfile = join(__dirname, '..', 'bench-results', `.${entryName.replace(/\.ts$/, '')}-${process.pid}.cjs`);
	try {
		const esbuild = await import('esbuild');
		await esbuild.build({
			entryPoints: [entry],
			outfile,
			...AS_PUBLISHED,
			// The only bundled module reading __dirname is bench/corpus.ts (it finds the fixture from there);
			// bench/engine.ts takes the engine bundled in rather than bundling it again.
			define: { __dirname: JSON.stringify(__dirname), 'process.env.BENCH_ENGINE_BUNDLED': '"1"' },
			logLevel: 'silent'
		});
		return {
			modulePath: outfile,
			execArgv: ['--expose-gc'],
			runtime: `plain node ${process.version} (sources bundled by esbuild)`,
			cleanup: () => rmSync(outfile, { force: true })
		};
	} catch (error) {
		rmSync(outfile, { force: true });
		progress(
			`${entryName}: cannot bundle the measurement (${errorText(error).split('\n')[0]}); running it under tsx, whose loader adds some 45 MiB`
		);
		const execArgv = [...process.execArgv.filter((flag) => flag !== '--expose-gc'), '--expose-gc'];
		return { modulePath: entry, execArgv, runtime: `node ${process.version} under the tsx loader`, cleanup: () => undefined };
	}
}

/** Runs the measurement with `args`; resolves with the one message it sends before it exits. Its output goes to stderr. */
export function runChild<T>(program: ChildProgram, args: string[]): Promise<T> {
	const child = fork(program.modulePath, args, { execArgv: program.execArgv, stdio: ['ignore', 2, 2, 'ipc'] });
	return new Promise((resolve, reject) => {
		let result: T | undefined;
		child.on('message', (message) => (result = message as T));
		child.on('error', reject);
		child.on('exit', (code, signal) => {
			if (result !== undefined && code === 0) resolve(result);
			else reject(new Error(`The measurement process ${program.modulePath} ended with ${signal ?? `code ${code}`} before reporting.`));
		});
	});
}
