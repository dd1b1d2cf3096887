// The crash test's child: records CRASH_STREAMS into the SQLite file it is given, one loop per
// stream, all at once, and prints each turn as it starts and the moment its recordTurn resolved,
// until the parent kills it. Usage: node --import tsx crash-writer.mts <storeUrl> <round> <resume JSON>
import { MemoryEngine } from '../../src/engine/MemoryEngine';
import { CRASH_STREAMS, crashTurn, HISTORY_TURNS, type StartedTurn } from './crash-stream';

const [storeUrl, roundArgument, resumeArgument] = process.argv.slice(2);
const round = Number(roundArgument);
/** Per stream, the turns the previous rounds started last: the first history repeats them, as a restarted bot's fetch does. */
const resume = JSON.parse(resumeArgument ?? '[]') as StartedTurn[][];
const say = (line: string) => process.stdout.write(`${line}\n`);

const engine = await MemoryEngine.open({
	env: {},
	config: { storeUrl, sweepIntervalMinutes: 0 },
	logger: { warn: () => undefined, error: (...values) => console.error(...values) }
});
say('ready');

await Promise.all(
	CRASH_STREAMS.map(async (_, stream) => {
		const earlier = [...(resume[stream] ?? [])];
		for (let n = 0; n < 1_000_000; n++) {
			// Strictly later than the previous turn's replies, so every reader orders the stream alike.
			const at = Math.max(Date.now(), (earlier.at(-1)?.at ?? 0) + 10);
			say(`start ${stream} ${n} ${at}`);
			await engine.recordTurn(crashTurn(round, stream, n, at, earlier.slice(-HISTORY_TURNS)));
			say(`done ${stream} ${n}`);
			earlier.push({ round, stream, n, at });
		}
	})
);
