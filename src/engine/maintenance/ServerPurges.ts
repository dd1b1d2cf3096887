import type { MemoryConfig } from '../config';
import type { ServerPurge } from '../ledger/forgetServer';
import type { MessageLedger } from '../ledger/MessageLedger';
import type { SettingsRepository } from '../records/SettingsRepository';
import { assertId, type PendingPurge } from '../schemas';
import { Records } from '../records/Records';
import type { Registry } from '../records/Registry';

const HOUR = 3_600_000;

/** What purges work with. */
export interface ServerPurgeParts {
	ledger: MessageLedger;
	registry: Registry;
	settings: SettingsRepository;
	config: MemoryConfig;
	/** Runs an erasure (see EngineParts.erasing). */
	erasing: <T>(erase: () => Promise<T>) => Promise<T>;
}

/**
 * The bot was removed from a server: everything of it is erased at once, or after
 * `MEMORY_SERVER_PURGE_GRACE_HOURS`. A pending purge is stored (`purge:server:<id>`, registered), so it
 * survives a restart: the sweep runs it once due, and the bot's return to the server cancels it.
 */
export class ServerPurges {
	/**
	 * The servers with a purge pending, read from the registry once: every server the bot is in is announced at
	 * each start (`guildAvailable`), and asking the store for each would cost a read per server.
	 */
	private pending: Promise<Set<string>> | null = null;

	public constructor(private readonly parts: ServerPurgeParts) {}

	/** The bot left `serverId`: purged now (no grace), or when due. */
	public async removed(serverId: string, now: number): Promise<{ purged: ServerPurge | null; purgeAt: number }> {
		assertId('serverId', serverId);
		const graceMs = this.parts.config.serverPurgeGraceHours * HOUR;
		if (graceMs === 0) return { purged: await this.purge(serverId), purgeAt: now };
		const pending: PendingPurge = { removedAt: now, dueAt: now + graceMs };
		await this.parts.registry.note('purges', serverId, serverId);
		await this.parts.ledger.store.set(Records.serverPurge(serverId), pending);
		(await this.pendingIds()).add(serverId);
		return { purged: null, purgeAt: pending.dueAt };
	}

	/** The bot is in `serverId` again: a pending purge is cancelled. Resolves true when there was one. */
	public async rejoined(serverId: string): Promise<boolean> {
		assertId('serverId', serverId);
		const pendingIds = await this.pendingIds();
		if (!pendingIds.has(serverId)) return false;
		pendingIds.delete(serverId);
		const key = Records.serverPurge(serverId);
		const pending = await this.parts.ledger.store.get<PendingPurge>(key);
		if (!pending) return false;
		await this.parts.ledger.store.delete([key]);
		await this.parts.registry.remove('purges', serverId, [serverId]);
		return true;
	}

	/** Erases everything of `serverId` now, and any purge pending for it. */
	public async purge(serverId: string): Promise<ServerPurge> {
		assertId('serverId', serverId);
		// Everything inside the erasure, which ends with the SQLite file rewritten: the pending purge names the server too.
		return this.parts.erasing(async () => {
			const forgotten = await this.parts.ledger.forgetServer(serverId);
			await this.parts.settings.forgetServer(serverId);
			(await this.pendingIds()).delete(serverId);
			await this.parts.ledger.store.delete([Records.serverPurge(serverId)]);
			await this.parts.registry.remove('purges', serverId, [serverId]);
			return forgotten;
		});
	}

	/** The sweep's part: runs every purge due at `now`. Returns the servers purged. */
	public async runDue(now: number): Promise<number> {
		let purged = 0;
		for await (const { partition, ids } of this.parts.registry.slices('purges'))
			for (const serverId of ids) {
				const pending = await this.parts.ledger.store.get<PendingPurge>(Records.serverPurge(serverId));
				if (!pending) {
					await this.parts.registry.removeFrom([{ partition, ids: [serverId] }]);
					continue;
				}
				if (pending.dueAt > now) continue;
				await this.purge(serverId);
				purged++;
			}
		return purged;
	}

	private pendingIds(): Promise<Set<string>> {
		this.pending ??= this.parts.registry.every('purges').then(
			(ids) => new Set(ids),
			(error: unknown) => {
				this.pending = null;
				throw error;
			}
		);
		return this.pending;
	}
}
