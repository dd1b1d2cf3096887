import { container, Plugin, postInitialization, preLogin, SapphireClient } from '@sapphire/framework';
import type { ClientOptions } from 'discord.js';
import { loadCommands } from '../commands/_load';
import { loadListeners } from '../listeners/_load';
import { MemoryEvents } from './plugin/events';
import { invalidConfig, MemoryEngine } from './engine';
import { registerMemoryMetrics } from './ops/prometheus';
import { pluginOptions, startupProblems } from './plugin/pluginOptions';
// The root entry holds the module augmentation (ClientOptions.memory, Container.memory): its types come with this entry
// (a type-only import, so the bundle does not move the root entry's code into a shared chunk).
import type {} from './index';

/** Takes each client's engine out of the Prometheus registry when the client is destroyed. */
const unregisterMetrics = new WeakMap<SapphireClient, () => void>();

/** Adds memory to a Sapphire bot: `import 'sapphire-plugin-memory/register'`. */
export class MemoryPlugin extends Plugin {
	/** Loads the pieces and makes the client's destroy close the store. */
	public static override [postInitialization](this: SapphireClient, options: ClientOptions): void {
		// A bad option stops the client's login, with every other bad setting (see preLogin); none of the pieces loads meanwhile.
		if (startupProblems(options.memory).length > 0) return;
		const memory = pluginOptions(this);
		const failed = (error: unknown) => container.logger.error('[memory] loading the plugin pieces failed:', error);
		loadListeners({ defaultErrorListener: memory.defaultErrorListener }).catch(failed);
		if (memory.sessionCommand) loadCommands().catch(failed);
		const destroy = this.destroy.bind(this);
		this.destroy = async () => {
			await destroy();
			unregisterMetrics.get(this)?.();
			await container.memory?.close().catch((error: unknown) => container.logger.error('[memory] closing the store failed:', error));
		};
	}

	/**
	 * Opens the engine before login, so a bad option or setting stops start-up with a clear message (`INVALID_CONFIG`,
	 * every bad one at once). A store outage is emitted once when it starts (`memoryError`, phase `store`) and once when it ends.
	 */
	public static override async [preLogin](this: SapphireClient, options: ClientOptions): Promise<void> {
		const problems = startupProblems(options.memory);
		if (problems.length > 0) throw invalidConfig(problems);
		const memory = options.memory ?? {};
		container.memory = await MemoryEngine.open({
			storeUrl: memory.storeUrl,
			keyv: memory.keyv,
			config: memory.config,
			logger: container.logger,
			onStoreHealth: (change) => {
				if (change.available) this.emit(MemoryEvents.StoreRecovered, { downMs: change.downMs, failedCalls: change.failedCalls });
				else this.emit(MemoryEvents.Error, change.error, { phase: 'store' });
			}
		});
		// Started without its store (MEMORY_START_WITHOUT_STORE): said here, as the plugin's error listener loads after this hook.
		const { lastOutage } = container.memory.stats().store;
		if (lastOutage?.endedAt === null)
			container.logger.warn(`[memory] ${lastOutage.firstError} Memory is off until the store answers (MEMORY_START_WITHOUT_STORE).`);
		const { metrics } = pluginOptions(this);
		if (metrics === false) return;
		// Metrics are a convenience: a registry that refuses them never stops the bot.
		const unregister = await registerMemoryMetrics(container.memory, metrics).catch((error: unknown) => {
			container.logger.warn('[memory] registering the Prometheus metrics failed:', error);
			return null;
		});
		if (unregister) unregisterMetrics.set(this, unregister);
	}
}

SapphireClient.plugins.registerPostInitializationHook(MemoryPlugin[postInitialization], 'Memory-PostInitialization');
SapphireClient.plugins.registerPreLoginHook(MemoryPlugin[preLogin], 'Memory-PreLogin');
