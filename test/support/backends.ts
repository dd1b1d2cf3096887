import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeEach } from 'vitest';
import { type MemoryConfig, MemoryEngine, type MemoryEngineOptions, MemoryEnvironment, type StorageKind } from '../../src/engine';
import { MemoryStore } from '../../src/engine/store/MemoryStore';

/** A store the engine suite runs against. */
export interface Backend {
	name: 'sqlite' | 'keyv-sqlite' | 'redis' | 'postgres';
	/** Whether the store is an SQLite file (with either driver). */
	file: boolean;
	/** The backend as the engine names it (`/session status`, the CLI): both SQLite drivers are `sqlite`. */
	storage: StorageKind;
	/** The settings that pick the backend's driver, to pass wherever a test opens an engine or a store itself. */
	config: Partial<MemoryConfig>;
	/** Why the suite is skipped here, or null when it runs. */
	skipReason: string | null;
	/** A URL to a fresh, empty store (a new file, or a new namespace on a shared server). */
	url(): { storeUrl: string; namespace: string; cleanup: () => void };
}

const redisUrl = process.env.MEMORY_TEST_REDIS_URL;
const postgresUrl = process.env.MEMORY_TEST_POSTGRES_URL;

/** A fresh SQLite file in a directory of its own. */
function sqliteFile() {
	const dir = mkdtempSync(join(tmpdir(), 'memory-test-'));
	return { storeUrl: `sqlite://${join(dir, 'memory.sqlite')}`, namespace: 'memory', cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export const backends: Backend[] = [
	{ name: 'sqlite', file: true, storage: 'sqlite', config: {}, skipReason: null, url: sqliteFile },
	// The same file through @keyv/sqlite (MEMORY_SQLITE_DRIVER), the other supported way to run on SQLite.
	{ name: 'keyv-sqlite', file: true, storage: 'sqlite', config: { sqliteDriver: '@keyv/sqlite' }, skipReason: null, url: sqliteFile },
	{
		name: 'redis',
		file: false,
		storage: 'redis',
		config: {},
		skipReason: redisUrl ? null : 'MEMORY_TEST_REDIS_URL is not set (e.g. redis://127.0.0.1:6379)',
		url: () => ({ storeUrl: redisUrl!, namespace: `t${randomUUID().slice(0, 8)}`, cleanup: () => undefined })
	},
	{
		name: 'postgres',
		file: false,
		storage: 'postgres',
		config: {},
		skipReason: postgresUrl ? null : 'MEMORY_TEST_POSTGRES_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)',
		url: () => ({ storeUrl: postgresUrl!, namespace: `t${randomUUID().slice(0, 8)}`, cleanup: () => undefined })
	}
];

for (const backend of backends) {
	// Printed once per file so a skipped suite is never silent.
	if (backend.skipReason) console.warn(`[memory tests] skipping the ${backend.name} backend: ${backend.skipReason}`);
}

/** Skips each test of the calling suite, with the backend's reason, where the backend is not configured here. */
export function skipEachWhereUnavailable(backend: Backend): void {
	beforeEach(({ skip }) => {
		if (backend.skipReason) skip(backend.skipReason);
	});
}

/** The backend's driver settings as environment variables, for a child process (the CLI, a shard). */
export function backendEnv(backend: Backend): Record<string, string> {
	return Object.fromEntries(
		Object.entries(MemoryEnvironment)
			.filter(([, spec]) => spec.key in backend.config)
			.map(([name, spec]) => [name, String(backend.config[spec.key as keyof MemoryConfig])])
	);
}

/** A controllable clock for TTL tests. */
export class TestClock {
	public constructor(public current = Date.UTC(2026, 2, 2, 18, 0, 0)) {}
	public readonly now = () => this.current;

	public advance(ms: number): void {
		this.current += ms;
	}

	public hours(hours: number): void {
		this.advance(hours * 3_600_000);
	}
}

/** Opens an engine on a fresh store of `backend`; `close()` also removes what it wrote. */
export async function openEngine(backend: Backend, options: Omit<MemoryEngineOptions, 'storeUrl'> = {}) {
	const { storeUrl, namespace, cleanup } = backend.url();
	const engine = await MemoryEngine.open({
		...options,
		env: {},
		config: { storeUrl, storeNamespace: namespace, ...backend.config, ...options.config }
	});
	return {
		engine,
		storeUrl,
		namespace,
		dispose: async () => {
			await engine.close();
			if (!backend.file) {
				const raw = await MemoryStore.open({ storeUrl, namespace });
				await raw.keyv.clear();
				await raw.close();
			}
			cleanup();
		}
	};
}
