/**
 * A shard process for the shard tests: opens a MemoryEngine on the store named by its environment and
 * runs the engine calls its parent sends over IPC, one message per call, all at once as they come.
 * Started by {@link ShardProcess} in `shards.ts`; never imported.
 */
// The engine alone, not the package root: a shard process of the engine needs neither discord.js nor Sapphire.
import { MemoryError } from '../../src/engine/errors';
import { MemoryEngine } from '../../src/engine/MemoryEngine';
import { flushAuthorCounts } from './store-inspection';

interface Call {
	id: number;
	method: string;
	args: unknown[];
}

async function main(): Promise<void> {
	const engine = await MemoryEngine.open({
		env: {},
		config: JSON.parse(process.env.SHARD_CONFIG ?? '{}'),
		logger: { warn: () => undefined, error: (...values: unknown[]) => console.error(`[shard ${process.env.SHARD_NAME}]`, ...values) }
	});
	const methods = engine as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
	process.on('message', (call: Call) => {
		const run =
			call.method === 'exit'
				? engine.close().then(() => process.disconnect())
				: call.method === 'flushAuthorCounts'
					? flushAuthorCounts(engine)
					: Promise.resolve().then(() => methods[call.method]!.apply(engine, call.args));
		run.then(
			(result) => process.connected && process.send!({ id: call.id, ok: true, result }),
			(error: unknown) =>
				process.connected &&
				process.send!({
					id: call.id,
					ok: false,
					code: error instanceof MemoryError ? error.code : undefined,
					message: error instanceof Error ? error.message : String(error)
				})
		);
	});
	process.send!({ ready: true });
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
