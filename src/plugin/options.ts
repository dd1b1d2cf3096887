import type { Awaitable, PermissionResolvable } from 'discord.js';
import type Keyv from 'keyv';
import type { MemoryConfig } from '../engine';
import type { MemoryMetricsOptions } from '../ops/prometheus';
import type { PrivacyLevel } from '../engine';
import type { SessionStringOverrides } from './sessionStrings';

/** `new SapphireClient({ memory: { … } })`: every field is optional and overrides the environment. */
export interface MemoryPluginOptions {
	/** Overrides `MEMORY_STORE_URL`. */
	storeUrl?: string;
	/** A Keyv the host already has. */
	keyv?: Keyv;
	/** Overrides the environment, setting by setting. */
	config?: Partial<MemoryConfig>;
	/**
	 * The host's own privacy setting for a user. Return `undefined` to fall back to the level the
	 * member chose with `/session privacy`.
	 */
	resolvePrivacyLevel?: (userId: string) => Awaitable<PrivacyLevel | undefined>;
	/** Log `memoryError` events through `container.logger`. @default true */
	defaultErrorListener?: boolean;
	/** Load the `/session` command. @default true */
	sessionCommand?: boolean;
	/** The command's name, for a bot that has a `/session` of its own (its texts say `/<name>` too). @default 'session' */
	sessionCommandName?: string;
	/**
	 * The command's texts by Discord locale, in place of the English ones: its descriptions, option and choice names
	 * (sent to Discord as localizations) and every answer. Keys and English texts: `SESSION_STRINGS`. A host on
	 * @sapphire/plugin-i18next can instead translate them in its `memory` namespace.
	 * @example { fr: { 'command.description': 'Voir et gérer ce dont ce bot se souvient', 'status.heading': '**Ta mémoire**' } }
	 * @default {}
	 */
	sessionStrings?: SessionStringOverrides;
	/** Guilds to register `/session` in; global when empty. @default [] */
	commandGuildIds?: string[];
	/** The permission a moderator needs for `/session wipe-channel`. @default PermissionFlagsBits.ManageMessages */
	moderatorPermission?: PermissionResolvable;
	/** How long the `/session clear scope:all` confirmation buttons stay valid. @default 60_000 */
	confirmationTimeoutMs?: number;
	/**
	 * Per-member cooldowns of the subcommands that cost the store the most; a member who runs one too often is told
	 * when to try again. `false` turns one, or all, off.
	 * @example { export: { delay: 300_000 }, privacy: false }
	 * @default { export: { delay: 60_000, limit: 1 }, clear: { delay: 60_000, limit: 2 }, privacy: { delay: 60_000, limit: 3 } }
	 */
	sessionCooldowns?: false | Partial<Record<CooledSubcommand, SessionCooldownOptions | false>>;
	/**
	 * Publishes `memory.stats()` as Prometheus metrics (`sapphire_memory_…`) when the host has
	 * `prom-client` installed: on its default registry, or on `{ registry }`; `false` publishes none.
	 * The plugin serves no HTTP endpoint: the host serves its registry's `metrics()`.
	 * @default {}
	 */
	metrics?: false | MemoryMetricsOptions;
}

/** The `/session` subcommands with a per-member cooldown. */
export type CooledSubcommand = 'export' | 'clear' | 'privacy';

/** A per-member cooldown of one `/session` subcommand, as Sapphire's `cooldownDelay` and `cooldownLimit` (scope: user). */
export interface SessionCooldownOptions {
	/** Milliseconds from a member's first run until they may run it `limit` times again; 0 turns the cooldown off. */
	delay?: number;
	/** Runs a member may make within `delay`. */
	limit?: number;
}
