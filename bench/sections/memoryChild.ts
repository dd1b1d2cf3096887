/**
 * Entry of the memory measurement's own process (forked by memory.ts with --expose-gc), so that what
 * the other sections allocated does not count. Reads the memory of the bare process first, then loads
 * the engine. Arguments: channels, servers, turns per channel, runtime description.
 */
function bareProcess(): { rss: number; heapUsed: number } {
	const { gc } = globalThis as { gc?: () => void };
	if (gc) for (let round = 0; round < 3; round++) gc();
	const { rss, heapUsed } = process.memoryUsage();
	return { rss, heapUsed };
}

const processStart = bareProcess();
// Loaded only now, so that processStart is the process without the engine.
// eslint-disable-next-line @typescript-eslint/no-var-requires -- an import would be hoisted above the reading
const work = require('./memoryWork') as typeof import('./memoryWork');
const [channels, servers, turnsPerChannel] = process.argv.slice(2, 5).map(Number) as [number, number, number];

work.measureMemory(channels, servers, turnsPerChannel, processStart, process.argv[5] ?? 'unknown')
	.then((result) => process.send!(result))
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
