import { createBotMessage, deleteBotMessage, editBotMessage, type FakeContext } from '../context';
import { discordError, json, noContent, type Router } from '../router';
import type { ApiObject } from '../types';
import { invalidMessageBody } from './validation';

/** A channel, its message history, and the bot's messages in it. */
export function channelRoutes(router: Router, context: FakeContext): void {
	const { state, messages } = context;
	const unknownChannel = () => discordError(404, 10003, 'Unknown Channel');
	const unknownMessage = () => discordError(404, 10008, 'Unknown Message');
	const inChannel = (channelId: string, messageId: string) => messages.inChannel(channelId).find((message) => message.id === messageId);

	router
		.on('GET', '/channels/:channelId', ({ params }) => {
			const channel = state.findChannel(params.channelId!);
			return channel ? json(channel) : unknownChannel();
		})
		.on('GET', '/channels/:channelId/messages', ({ params, query }) => {
			if (!state.findChannel(params.channelId!)) return unknownChannel();
			const limit = query.limit === undefined ? undefined : Number(query.limit);
			return json(messages.history(params.channelId!, { limit, before: query.before, after: query.after, around: query.around }));
		})
		.on('GET', '/channels/:channelId/messages/:messageId', ({ params }) => {
			const message = inChannel(params.channelId!, params.messageId!);
			return message ? json(message) : unknownMessage();
		})
		.on('POST', '/channels/:channelId/messages', ({ params, body, files }) => {
			if (!state.findChannel(params.channelId!)) return unknownChannel();
			const request = (body ?? {}) as ApiObject;
			const invalid = invalidMessageBody(request, files, true);
			if (invalid) return invalid;
			const referenceId = (request.message_reference as ApiObject | undefined)?.message_id;
			const referenced = referenceId === undefined ? undefined : messages.find(String(referenceId));
			const flags = Number(request.flags ?? 0);
			return json(createBotMessage(context, { channelId: params.channelId!, referenced, flags }, request, files));
		})
		.on('PATCH', '/channels/:channelId/messages/:messageId', ({ params, body, files }) => {
			if (!inChannel(params.channelId!, params.messageId!)) return unknownMessage();
			const invalid = invalidMessageBody((body ?? {}) as ApiObject, files, false);
			if (invalid) return invalid;
			return json(editBotMessage(context, params.messageId!, (body ?? {}) as ApiObject, files));
		})
		.on('DELETE', '/channels/:channelId/messages/:messageId', ({ params }) => {
			if (!inChannel(params.channelId!, params.messageId!)) return unknownMessage();
			deleteBotMessage(context, params.messageId!);
			return noContent();
		})
		.on('POST', '/channels/:channelId/typing', ({ params }) => (state.findChannel(params.channelId!) ? noContent() : unknownChannel()));
}
