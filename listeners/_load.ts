import { container } from '@sapphire/framework';
import { PluginListener as PluginMemoryError } from './PluginMemoryError';
import { PluginListener as PluginTurnCompleted } from './PluginTurnCompleted';

/** Loads the plugin's listeners as virtual pieces, so they work from `dist/` in CommonJS and ESM. */
export async function loadListeners(options: { defaultErrorListener?: boolean }): Promise<void> {
	const store = 'listeners';
	await container.stores.loadPiece({ name: 'PluginTurnCompleted', piece: PluginTurnCompleted, store });
	if (options.defaultErrorListener !== false) await container.stores.loadPiece({ name: 'PluginMemoryError', piece: PluginMemoryError, store });
}
