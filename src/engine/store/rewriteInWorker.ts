import { sqliteWorker } from './sqliteWorker';

/** The worker's program (see sqliteWorker). */
const PROGRAM = `
const { workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.path, { timeout: workerData.busyTimeoutMs });
try {
	// As the bot's connection: VACUUM builds the new file with this connection's setting, and without it the unused room of
	// the new pages kept bytes of the old ones (a message's text deleted a step before, found by forgetting-properties).
	db.pragma('secure_delete = ON');
	db.exec('VACUUM');
	// Copied into the file while the bot's connection goes on reading: a reader in the way makes it report busy, and it is
	// tried again (the caller's connection empties the log once more anyway).
	for (let tries = 0; tries < 50 && db.pragma('wal_checkpoint(TRUNCATE)')[0].busy !== 0; tries++) {
		Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
	}
} finally {
	db.close();
}
`;

/**
 * Rewrites the SQLite file at `path` into fresh pages (`VACUUM`) and empties its write-ahead log, in a worker thread on a
 * connection of its own: the rewrite takes time in proportion to the file's size (some 5 ms a megabyte here, 0.5 s for a
 * file of 100 MB), during which the calling thread's event loop goes on answering. The worker ends with the rewrite.
 */
export function rewriteInWorker(path: string, busyTimeoutMs: number): Promise<void> {
	return new Promise((resolve, reject) => {
		const worker = sqliteWorker(PROGRAM, { path, busyTimeoutMs });
		worker.once('error', reject);
		worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`The SQLite file's rewrite ended with code ${code}.`))));
	});
}
