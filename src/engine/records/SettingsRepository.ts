import { LRUCache } from 'lru-cache';
import {
	assertId,
	parseInput,
	PrivacyLevel,
	type ServerSettings,
	type LeftMembers,
	type ServerSettingsPatch,
	ServerSettingsPatchSchema,
	type UserSettings,
	type UserSettingsPatch
} from '../schemas';
import { Records } from './Records';
import type { RecordStore } from './RecordStore';

export const DEFAULT_USER_SETTINGS: Readonly<UserSettings> = Object.freeze({ privacyLevel: PrivacyLevel.MINIMAL, crossServerOptIn: false });

/** Which barrier a member's erasure sets (see {@link UserSettings}). */
export type Barrier = 'clearedBefore' | 'erasedBefore';

/**
 * Per-user and per-server settings, read through a short cache: shards sharing one store see a
 * change made elsewhere within `cacheMs`, and the writing process sees it at once.
 */
export class SettingsRepository {
	private readonly users: LRUCache<string, UserSettings>;
	private readonly servers: LRUCache<string, ServerSettings>;

	public constructor(
		private readonly store: RecordStore,
		cacheMs = 5_000
	) {
		this.users = new LRUCache({ max: 20_000, ttl: cacheMs });
		this.servers = new LRUCache({ max: 10_000, ttl: cacheMs });
	}

	public async user(userId: string): Promise<UserSettings> {
		return (await this.manyUsers(userId ? [userId] : []))[0] ?? { ...DEFAULT_USER_SETTINGS };
	}

	/** Settings of many users in one round trip, in the order given. */
	public async manyUsers(userIds: readonly string[]): Promise<UserSettings[]> {
		const missing = [...new Set(userIds.filter((id) => !this.users.has(id)))];
		if (missing.length > 0) {
			const stored = await this.store.getMany<UserSettings>(missing.map(Records.userSettings));
			// A write made while the read was out (a barrier set by an erasure) is newer than what the read saw.
			missing.forEach((id, index) => this.users.has(id) || this.users.set(id, { ...DEFAULT_USER_SETTINGS, ...stored[index] }));
		}
		return userIds.map((id) => this.users.get(id) ?? { ...DEFAULT_USER_SETTINGS });
	}

	/**
	 * Settings of many users read from the store, not the cache, in the order given: what another process changed a
	 * moment ago. The cache is left as it is: a change this process makes meanwhile may be newer than what this read saw.
	 */
	public async manyUsersFresh(userIds: readonly string[]): Promise<UserSettings[]> {
		const stored = await this.store.getMany<UserSettings>(userIds.map(Records.userSettings));
		return stored.map((settings) => ({ ...DEFAULT_USER_SETTINGS, ...settings }));
	}

	/** Merges a checked patch into a member's settings (the caller checked it: `Erasures.setUserSettings`). */
	public async setUser(userId: string, parsed: UserSettingsPatch, now: number): Promise<UserSettings> {
		const next = await this.store.update<UserSettings>(Records.userSettings(userId), (current) => {
			const value: UserSettings = { ...DEFAULT_USER_SETTINGS, ...current, ...definedFields(parsed) };
			// Leaving FULL: what they wrote while invisible stays out of memory, even when a later history carries it.
			if (current?.privacyLevel === PrivacyLevel.FULL && value.privacyLevel !== PrivacyLevel.FULL) value.fullUntil = now;
			return { value };
		});
		this.users.set(userId, next!);
		return { ...next! };
	}

	/**
	 * Records that capture must never store again a message of `userId` written at or before `at`
	 * (`clearedBefore` after `/session clear`, `erasedBefore` after `/session clear all`).
	 */
	public async setBarrier(userId: string, field: Barrier, at: number): Promise<UserSettings> {
		const next = await this.store.update<UserSettings>(Records.userSettings(userId), (current) => ({
			value: { ...DEFAULT_USER_SETTINGS, ...current, [field]: Math.max(at, current?.[field] ?? at) }
		}));
		this.users.set(userId, next!);
		return { ...next! };
	}

	/**
	 * Records that `userId` left `serverId` at `at`: capture never stores again what they wrote there until then. The
	 * server's list of members who left names them first, so a purge of the server finds every settings row naming it.
	 */
	public async setLeftServer(userId: string, serverId: string, at: number): Promise<void> {
		await this.store.update<LeftMembers>(Records.leftMembers(serverId), (current) => ({ value: { ...current, [userId]: at } }));
		const next = await this.store.update<UserSettings>(Records.userSettings(userId), (current) => ({
			value: { ...DEFAULT_USER_SETTINGS, ...current, leftServers: { ...current?.leftServers, [serverId]: at } }
		}));
		this.users.set(userId, next!);
	}

	public async server(serverId: string): Promise<ServerSettings> {
		const cached = this.servers.get(serverId);
		if (cached) return cached;
		const stored = await this.store.get<ServerSettings>(Records.serverSettings(serverId));
		const settings = { privateChannelIds: stored?.privateChannelIds ?? [], summaryCategories: stored?.summaryCategories ?? [] };
		this.servers.set(serverId, settings);
		return settings;
	}

	/**
	 * Deletes a server's settings (the bot left it), here and in this process's cache, and the server from the settings
	 * of the members who left it.
	 */
	public async forgetServer(serverId: string): Promise<void> {
		this.servers.delete(serverId);
		const left = await this.store.get<LeftMembers>(Records.leftMembers(serverId));
		for (const userId of Object.keys(left ?? {})) {
			const next = await this.store.update<UserSettings>(Records.userSettings(userId), (current) => {
				if (!current?.leftServers?.[serverId]) return null;
				const { [serverId]: _, ...others } = current.leftServers;
				return { value: { ...current, leftServers: others } };
			});
			if (next) this.users.set(userId, next);
		}
		await this.store.delete([Records.serverSettings(serverId), Records.leftMembers(serverId)]);
	}

	public async setServer(serverId: string, patch: ServerSettingsPatch): Promise<ServerSettings> {
		assertId('serverId', serverId);
		const parsed = parseInput(ServerSettingsPatchSchema, patch, 'server settings');
		const next = await this.store.update<ServerSettings>(Records.serverSettings(serverId), (current) => ({
			value: { privateChannelIds: [], summaryCategories: [], ...current, ...definedFields(parsed) }
		}));
		this.servers.set(serverId, next!);
		return { ...next! };
	}
}

/** The fields of a patch that it sets (a field given as `undefined` changes nothing). */
function definedFields<T extends object>(value: T): Partial<T> {
	return Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;
}
