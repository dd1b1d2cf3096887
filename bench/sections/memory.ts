import { childProgram, runChild } from '../child';
import type { BenchPlan } from '../options';
import type { MemoryResult } from '../results';

/**
 * Section 4, resident memory with many active channels, measured in a process of its own so the figure
 * is the engine's alone. The measurement's sources are bundled with esbuild (packages left as they are)
 * and run by plain node: the tsx loader alone would add some 45 MiB. Its output goes to stderr.
 */
export async function runMemory(plan: BenchPlan): Promise<MemoryResult> {
	const { channels, servers, turnsPerChannel } = plan.memory;
	const program = await childProgram('memoryChild.ts');
	try {
		return await runChild<MemoryResult>(program, [String(channels), String(servers), String(turnsPerChannel), program.runtime]);
	} finally {
		program.cleanup();
	}
}
