import type { FakeContext } from '../context';
import { discordError, json, noContent, type Router } from '../router';
import type { ApiObject } from '../types';

/** Application commands, global (`/applications/:id/commands`) and per guild (`/applications/:id/guilds/:guildId/commands`). */
export function commandRoutes(router: Router, context: FakeContext): void {
	const { commands } = context;
	const unknownCommand = () => discordError(404, 10063, 'Unknown application command');
	for (const scope of ['/applications/:applicationId/commands', '/applications/:applicationId/guilds/:guildId/commands']) {
		router
			.on('GET', scope, ({ params }) => json(commands.list(params.guildId)))
			.on('PUT', scope, ({ params, body }) => json(commands.overwrite((body ?? []) as ApiObject[], params.guildId)))
			.on('POST', scope, ({ params, body }) => json(commands.upsert((body ?? {}) as ApiObject, params.guildId), 201))
			.on('GET', `${scope}/:commandId`, ({ params }) => {
				const command = commands.get(params.commandId!, params.guildId);
				return command ? json(command) : unknownCommand();
			})
			.on('PATCH', `${scope}/:commandId`, ({ params, body }) => {
				const command = commands.edit(params.commandId!, (body ?? {}) as ApiObject, params.guildId);
				return command ? json(command) : unknownCommand();
			})
			.on('DELETE', `${scope}/:commandId`, ({ params }) =>
				commands.delete(params.commandId!, params.guildId) ? noContent() : unknownCommand()
			);
	}
}
