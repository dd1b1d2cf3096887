import { fork } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { progress } from '../log';
import type { BenchPlan } from '../options';
import type { MemoryResult } from '../results';
import { errorText } from './shared';

interface ChildProgram {
	modulePath: string;
	execArgv: string[];
	runtime: string;
	cleanup: () => void;
}

/**
 * Section 4, resident memory with many active channels, measured in a process of its own so the figure
 * is the engine's alone. The measurement's sources are bundled with esbuild (packages left as they are)
 * and run by plain node: the tsx loader alone would add some 45 MiB. Its output goes to stderr.
 */
export async function runMemory(plan: BenchPlan): Promise<MemoryResult> {
	const { channels, servers, turnsPerChannel } = plan.memory;
	const program = await childProgram();
	try {
		return await runChild(program, [String(channels), String(servers), String(turnsPerChannel), program.runtime]);
	} finally {
		program.cleanup();
	}
}

async function childProgram(): Promise<ChildProgram> {
	const entry = join(__dirname, 'memoryChild.ts');
	// In the git-ignored results directory, inside the project so the packages it requires resolve.
	const benchDirectory = join(__dirname, '..');
	const outfile = join(benchDirectory, '..', 'bench-results', `.memory-child-${process.pid}.cjs`);
	try {
		const esbuild = await import('esbuild');
		await esbuild.build({
			entryPoints: [entry],
			outfile,
			bundle: true,
			platform: 'node',
			format: 'cjs',
			target: 'node20',
			packages: 'external',
			// The only bundled module reading __dirname is bench/corpus.ts (it finds the fixture from there);
			// bench/engine.ts takes the engine bundled in rather than bundling it again.
			define: { __dirname: JSON.stringify(benchDirectory), 'process.env.BENCH_ENGINE_BUNDLED': '"1"' },
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
		progress(`memory: cannot bundle the measurement (${errorText(error).split('\n')[0]}); running it under tsx, whose loader adds some 45 MiB`);
		const execArgv = [...process.execArgv.filter((flag) => flag !== '--expose-gc'), '--expose-gc'];
		return { modulePath: entry, execArgv, runtime: `node ${process.version} under the tsx loader`, cleanup: () => undefined };
	}
}

function runChild(program: ChildProgram, args: string[]): Promise<MemoryResult> {
	const child = fork(program.modulePath, args, { execArgv: program.execArgv, stdio: ['ignore', 2, 2, 'ipc'] });
	return new Promise((resolve, reject) => {
		let result: MemoryResult | undefined;
		child.on('message', (message) => (result = message as MemoryResult));
		child.on('error', reject);
		child.on('exit', (code, signal) => {
			if (result && code === 0) resolve(result);
			else reject(new Error(`The memory measurement process ended with ${signal ?? `code ${code}`} before reporting.`));
		});
	});
}
