import { container } from '@sapphire/framework';
import { PluginCommand as PluginSessionCommand } from './PluginSessionCommand';
import { PluginInteractionHandler as PluginConfirmButton } from './PluginConfirmButton';
import { PluginCommand as PluginMessageCommands } from './PluginMessageCommands';
import { PluginInteractionHandler as PluginPageButton } from './PluginPageButton';

/** Loads `/session`, its message commands, its confirmation buttons and its page buttons as virtual pieces. */
export async function loadCommands(): Promise<void> {
	await container.stores.loadPiece({ name: 'PluginSessionCommand', piece: PluginSessionCommand, store: 'commands' });
	await container.stores.loadPiece({ name: 'PluginMessageCommands', piece: PluginMessageCommands, store: 'commands' });
	await container.stores.loadPiece({ name: 'PluginConfirmButton', piece: PluginConfirmButton, store: 'interaction-handlers' });
	await container.stores.loadPiece({ name: 'PluginPageButton', piece: PluginPageButton, store: 'interaction-handlers' });
}
