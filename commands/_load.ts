import { container } from '@sapphire/framework';
import { PluginCommand as PluginSessionCommand } from './PluginSessionCommand';
import { PluginInteractionHandler as PluginConfirmButton } from './PluginConfirmButton';
import { PluginInteractionHandler as PluginForgetLineButton } from './PluginForgetLineButton';
import { PluginCommand as PluginMessageCommands } from './PluginMessageCommands';
import { PluginInteractionHandler as PluginPageButton } from './PluginPageButton';

/** Loads `/session`, its message commands, its confirmation, page and Forget-line buttons as virtual pieces. */
export async function loadCommands(): Promise<void> {
	await container.stores.loadPiece({ name: 'PluginSessionCommand', piece: PluginSessionCommand, store: 'commands' });
	await container.stores.loadPiece({ name: 'PluginMessageCommands', piece: PluginMessageCommands, store: 'commands' });
	await container.stores.loadPiece({ name: 'PluginConfirmButton', piece: PluginConfirmButton, store: 'interaction-handlers' });
	await container.stores.loadPiece({ name: 'PluginPageButton', piece: PluginPageButton, store: 'interaction-handlers' });
	await container.stores.loadPiece({ name: 'PluginForgetLineButton', piece: PluginForgetLineButton, store: 'interaction-handlers' });
}
