import { runShard, type ShardArguments, type ShardMessage } from './shardWork';

/**
 * Entry of one shard process (forked by shards.ts): its one argument is a ShardArguments. It says `ready` once its
 * engine is open and starts its turns at `go`, which the parent sends when every shard is ready, so that they overlap.
 */
const send = (message: ShardMessage) => new Promise<void>((resolve) => process.send!(message, () => resolve()));
const barrier = async () => {
	const go = new Promise<void>((resolve) => process.once('message', () => resolve()));
	await send({ ready: true });
	await go;
};

runShard(JSON.parse(process.argv[2]!) as ShardArguments, barrier)
	.then((report) => send({ report }))
	// The channel to the parent would keep the process alive: closed once the report is out.
	.then(() => process.disconnect())
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
		process.disconnect();
	});
