import { RateLimitManager } from '@sapphire/ratelimits';
import type { CooledSubcommand } from '../../src/plugin/options';
import type { ResolvedPluginOptions } from '../../src/plugin/pluginOptions';
import type { SessionText } from '../../src/plugin/SessionText';

/**
 * Per-member cooldowns of `/session export`, `clear` and `privacy`, counted as Sapphire's command cooldowns count
 * (`cooldownDelay`, `cooldownLimit`, scope user, with the same `RateLimitManager`), but per subcommand: Sapphire's
 * apply to the whole command, `status` and `help` included.
 */
export class SessionCooldowns {
	readonly #managers = new Map<string, RateLimitManager>();

	/** `cooldowns`: each cooled subcommand's, as the plugin's options resolve them (`pluginOptions`). */
	public constructor(cooldowns: ResolvedPluginOptions['sessionCooldowns']) {
		for (const [subcommand, { delay, limit }] of Object.entries(cooldowns)) this.#managers.set(subcommand, new RateLimitManager(delay, limit));
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
