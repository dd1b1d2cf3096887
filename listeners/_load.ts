import { container } from '@sapphire/framework';
import { PluginListener as PluginGuildAvailable } from './PluginGuildAvailable';
import { PluginListener as PluginGuildCreate } from './PluginGuildCreate';
import { PluginListener as PluginGuildDelete } from './PluginGuildDelete';
import { PluginListener as PluginGuildMemberRemove } from './PluginGuildMemberRemove';
import { PluginListener as PluginMemoryError } from './PluginMemoryError';
import { PluginListener as PluginMessageDelete } from './PluginMessageDelete';
import { PluginListener as PluginMessageDeleteBulk } from './PluginMessageDeleteBulk';
import { PluginListener as PluginMessageUpdate } from './PluginMessageUpdate';
import { PluginListener as PluginStoreRecovered } from './PluginStoreRecovered';
import { PluginListener as PluginTurnCompleted } from './PluginTurnCompleted';

/** Loads the plugin's listeners as virtual pieces, so they work from `dist/` in CommonJS and ESM. */
export async function loadListeners(options: { defaultErrorListener?: boolean }): Promise<void> {
	const store = 'listeners';
	await container.stores.loadPiece({ name: 'PluginTurnCompleted', piece: PluginTurnCompleted, store });
	// Edits and deletions on Discord change every copy memory holds of those messages.
	await container.stores.loadPiece({ name: 'PluginMessageUpdate', piece: PluginMessageUpdate, store });
	await container.stores.loadPiece({ name: 'PluginMessageDelete', piece: PluginMessageDelete, store });
	await container.stores.loadPiece({ name: 'PluginMessageDeleteBulk', piece: PluginMessageDeleteBulk, store });
	// Removed from a server: everything of it is erased (after the grace period, if any).
	await container.stores.loadPiece({ name: 'PluginGuildDelete', piece: PluginGuildDelete, store });
	// Back in a server: a purge still pending is cancelled.
	await container.stores.loadPiece({ name: 'PluginGuildCreate', piece: PluginGuildCreate, store });
	await container.stores.loadPiece({ name: 'PluginGuildAvailable', piece: PluginGuildAvailable, store });
	// A member left a server: forgotten there, when MEMORY_FORGET_MEMBERS_WHO_LEAVE is on.
	await container.stores.loadPiece({ name: 'PluginGuildMemberRemove', piece: PluginGuildMemberRemove, store });
	if (options.defaultErrorListener === false) return;
	await container.stores.loadPiece({ name: 'PluginMemoryError', piece: PluginMemoryError, store });
	await container.stores.loadPiece({ name: 'PluginStoreRecovered', piece: PluginStoreRecovered, store });
}
