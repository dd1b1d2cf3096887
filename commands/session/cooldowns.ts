import { RateLimitManager } from '@sapphire/ratelimits';
import type { CooledSubcommand, MemoryPluginOptions, SessionCooldownOptions } from '../../src/plugin/options';
import type { SessionText } from '../../src/plugin/SessionText';

/**
 * How often a member may run each: `export` builds the whole file again; `clear` asks twice when it erases everything
 * (a short-term clear, then `scope:all`); `privacy` a change and a look at it.
 */
export const DEFAULT_SESSION_COOLDOWNS: Record<CooledSubcommand, Required<SessionCooldownOptions>> = {
	export: { delay: 60_000, limit: 1 },
	clear: { delay: 60_000, limit: 2 },
	privacy: { delay: 60_000, limit: 3 }
};

/**
 * Per-member cooldowns of `/session export`, `clear` and `privacy`, counted as Sapphire's command cooldowns count
 * (`cooldownDelay`, `cooldownLimit`, scope user, with the same `RateLimitManager`), but per subcommand: Sapphire's
 * apply to the whole command, `status` and `help` included.
 */
export class SessionCooldowns {
	readonly #managers = new Map<string, RateLimitManager>();

	public constructor(options: MemoryPluginOptions['sessionCooldowns'] = {}) {
		if (options === false) return;
		for (const [subcommand, defaults] of Object.entries(DEFAULT_SESSION_COOLDOWNS)) {
			const chosen = options[subcommand as CooledSubcommand];
			if (chosen === false) continue;
			const delay = chosen?.delay ?? defaults.delay;
			if (delay > 0) this.#managers.set(subcommand, new RateLimitManager(delay, chosen?.limit ?? defaults.limit));
		}
	}

	/** Counts a member's run of `subcommand`; null when they may, or what to tell them when they ran it too often already. */
	public take(subcommand: string | null, userId: string): { tryAgain(text: SessionText): string } | null {
		const bucket = this.#managers.get(subcommand ?? '')?.acquire(userId);
		if (!bucket) return null;
		if (!bucket.limited) {
			bucket.consume();
			return null;
		}
		// Rounded up, so that Discord's "in N seconds" never runs out before the member may.
		const when = `<t:${Math.ceil(bucket.expires / 1000)}:R>`;
		return { tryAgain: (text) => text.get('reply.cooldown', { subcommand: text.get(`${subcommand as CooledSubcommand}.name`), when }) };
	}

	/** Gives back a run that memory could not do: the member was told to try again in a moment, not in a minute. */
	public giveBack(subcommand: string | null, userId: string): void {
		const manager = this.#managers.get(subcommand ?? '');
		const bucket = manager?.get(userId);
		if (manager && bucket) bucket.remaining = Math.min(manager.limit, bucket.remaining + 1);
	}
}
