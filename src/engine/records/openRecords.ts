import type { MemoryConfig } from '../config';
import { isOutage } from '../errors';
import type { MemoryLogger } from '../MemoryLogger';
import type { ReplyCalls } from '../ReplyCalls';
import type { StoreHealthChange } from '../schemas/storeHealth';
import { sqlitePath } from '../store/backends';
import { FileRewrites, isRewritableFile } from '../store/FileRewrites';
import { isCheckpointableLog, LogCheckpoints } from '../store/LogCheckpoints';
import { MemoryStore } from '../store/MemoryStore';
import type { StoreOptions } from '../store/openStore';
import { Sealer } from '../store/Sealer';
import { checkSeal } from '../store/sealing';
import { checkWhenReached } from './checkWhenReached';
import { RecordStore } from './RecordStore';
import { Registry } from './Registry';

/** The file an `sqlite://` store URL names (`:memory:` for none), as the operators' tools print it. */
export { sqlitePath };

/** What a store's files need once something was forgotten: on SQLite, the log emptied and the file rewritten (store/FileRewrites.ts). */
export interface FileRewriting {
	/** The log emptied and the file rewritten before this resolves. */
	now(): Promise<void>;
	/** The log emptied now or within a second, the file rewritten within `MEMORY_SQLITE_REWRITE_SECONDS`. */
	soon(log: 'now' | 'soon'): Promise<void>;
	/** Runs now the log's emptying that waits, and resolves once done. */
	logEmptied(): Promise<void>;
	/** Runs now what waits, and resolves once no file keeps what was forgotten. */
	settled(): Promise<void>;
}

/** How the engine opens its store. */
export interface RecordsOptions {
	config: MemoryConfig;
	/** A Keyv the host already has, used instead of opening `config.storeUrl`. */
	keyv?: StoreOptions['keyv'];
	logger: MemoryLogger;
	onStoreHealth: (change: StoreHealthChange) => void;
	/** The reply path's calls, which the SQLite log's checkpoints wait for. */
	replyCalls: ReplyCalls;
}

/**
 * The store, open: its records, the registry the sweep walks, and what its files need. Opening checks that the configured
 * keys open a sealed store, and seals a plain one whole when a key is set (store/sealing.ts).
 */
export class OpenRecords {
	/** Null unless the store is an SQLite file of the default driver. */
	private readonly logCheckpoints: LogCheckpoints | null;

	private constructor(
		private readonly store: MemoryStore,
		public readonly records: RecordStore,
		public readonly registry: Registry,
		public readonly rewrites: FileRewrites,
		/** Values found plain in a sealed store and sealed at start-up: no page of an SQLite file may keep them. */
		public readonly sealedNow: number,
		options: RecordsOptions,
		/** Stops asking a store that did not answer at start-up (see checkWhenReached). */
		private readonly stopAsking: () => void = () => undefined
	) {
		const { logger } = options;
		this.logCheckpoints = isCheckpointableLog(store.keyv.store)
			? new LogCheckpoints(store.keyv.store, options.replyCalls, (error) => {
					if (!isOutage(error)) logger.error('[memory] checkpointing the SQLite write-ahead log failed:', error);
				})
			: null;
	}

	/** Once the parts above have stopped: the registry's read-backs settled, a file rewrite still due run, the store closed. */
	public async close(logger: MemoryLogger): Promise<void> {
		this.stopAsking();
		await this.registry.settled();
		await this.rewrites.close().catch((error: unknown) => logger.error('[memory] rewriting the SQLite file failed:', error));
		await this.logCheckpoints?.stop();
		await this.store.close();
	}

	/**
	 * Opens the store `options.config` names (`STORE_UNAVAILABLE` when it cannot be reached, unless `startWithoutStore`;
	 * `INVALID_CONFIG` for keys that do not open it).
	 */
	public static async open(options: RecordsOptions): Promise<OpenRecords> {
		const { config, logger } = options;
		const { storeUrl, storeNamespace: namespace, storeTimeoutMs: timeoutMs, sqliteSynchronous, sqliteDriver, startWithoutStore } = config;
		const sealer = Sealer.fromConfig(config);
		const store = await MemoryStore.open({
			storeUrl,
			namespace,
			keyv: options.keyv,
			timeoutMs,
			sqliteSynchronous,
			sqliteDriver,
			sealer,
			startWithoutStore
		});
		const file = isRewritableFile(store.keyv.store) ? store.keyv.store : null;
		const rewrites = new FileRewrites(file, config.sqliteRewriteSeconds * 1000, logger);
		const registry = new Registry(store);
		const checks = async () => {
			const sealedNow = await checkSeal(store, (message) => logger.warn(message));
			// A store of the layout before sets: its registries' ids move into the sets now (each sweep looks again).
			await registry.adoptBuckets().catch((error: unknown) => logger.warn('[memory] moving the registry buckets into sets failed:', error));
			return sealedNow;
		};
		store.damaged.onDamaged((key, reason) =>
			logger.warn(`[memory] the stored value of ${key} could not be used (${reason}): it is read as missing, and the next write replaces it.`)
		);
		if (store.health.gate.closed) {
			store.health.onChange(options.onStoreHealth);
			// The outage began before anyone listened: told now, as one at run time is; its end is told when the store answers.
			options.onStoreHealth({ available: false, at: Date.now(), error: store.health.gate.cause! });
			// Values sealed once it answers were plain: no page of an SQLite file may keep them.
			const stop = checkWhenReached(store, async () => void ((await checks()) > 0 && (await rewrites.now())), logger);
			return new OpenRecords(store, new RecordStore(store), registry, rewrites, 0, options, stop);
		}
		let sealedNow: number;
		try {
			sealedNow = await checks();
		} catch (error) {
			await store.close().catch(() => undefined);
			throw error;
		}
		store.health.onChange(options.onStoreHealth);
		return new OpenRecords(store, new RecordStore(store), registry, rewrites, sealedNow, options);
	}
}
