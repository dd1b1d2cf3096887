import { Worker } from 'node:worker_threads';

/**
 * A worker thread running `program` on an SQLite file of its own connection: CommonJS from a string, so that it ships
 * inside the engine's one file. The program requires better-sqlite3 as `require(workerData.driver)`, by the path the
 * engine resolved, whatever the bot's working directory; `data` is the rest of its `workerData`.
 */
export function sqliteWorker(program: string, data: { path: string; busyTimeoutMs: number } & Record<string, unknown>): Worker {
	return new Worker(program, { eval: true, workerData: { ...data, driver: require.resolve('better-sqlite3') } });
}
