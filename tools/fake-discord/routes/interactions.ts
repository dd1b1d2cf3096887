import { InteractionResponseType, InteractionType, MessageFlags, MessageType } from 'discord.js';
import { createBotMessage, deleteBotMessage, editBotMessage, type FakeContext } from '../context';
import type { InteractionRecord } from '../interactionLog';
import { discordError, json, noContent, type RouteResponse, type Router } from '../router';
import type { ApiObject, RecordedFile } from '../types';
import { invalidMessageBody, oversizedUpload } from './validation';

/**
 * Interaction callbacks (`POST /interactions/:id/:token/callback`) and the interaction webhook:
 * follow-ups (`POST /webhooks/:appId/:token`) and `@original` or follow-up messages (GET, PATCH, DELETE).
 * As on Discord, an interaction takes one callback, and its webhook works only after it.
 */
export function interactionRoutes(router: Router, context: FakeContext): void {
	const { interactions } = context;
	const unknownWebhook = () => discordError(404, 10015, 'Unknown Webhook');
	const unknownMessage = () => discordError(404, 10008, 'Unknown Message');
	const messageOf = (record: InteractionRecord, messageId: string) => (messageId === '@original' ? record.originalMessageId : messageId);

	router
		.on('POST', '/interactions/:interactionId/:token/callback', ({ params, query, body, files }) => {
			const record = interactions.byId(params.interactionId!);
			if (!record || record.token !== params.token) return discordError(404, 10062, 'Unknown interaction');
			if (record.callbackType !== undefined) return discordError(400, 40060, 'Interaction has already been acknowledged.');
			const callback = (body ?? {}) as ApiObject;
			const data = (callback.data ?? {}) as ApiObject;
			if (callback.type === InteractionResponseType.ChannelMessageWithSource) {
				const invalid = invalidMessageBody(data, files, true);
				if (invalid) return invalid;
			}
			const oversized = oversizedUpload(files, uploadLimit(record));
			if (oversized) return oversized;
			record.callbackType = Number(callback.type);
			const message = acknowledge(context, record, data, files);
			if (query.with_response !== 'true') return noContent();
			return json({
				interaction: {
					id: record.id,
					type: record.type,
					response_message_id: message?.id ?? null,
					response_message_loading: record.callbackType === InteractionResponseType.DeferredChannelMessageWithSource,
					response_message_ephemeral: (Number(message?.flags ?? 0) & MessageFlags.Ephemeral) !== 0
				},
				resource: { type: record.callbackType, ...(message ? { message } : {}) }
			});
		})
		.on('POST', '/webhooks/:applicationId/:token', ({ params, body, files }) => {
			const record = interactions.byToken(params.token!);
			if (!record || record.callbackType === undefined) return unknownWebhook();
			const request = (body ?? {}) as ApiObject;
			const invalid = invalidMessageBody(request, files, true) ?? oversizedUpload(files, uploadLimit(record));
			if (invalid) return invalid;
			// Discord turns the first follow-up after a deferred reply into that reply (the "thinking…" message).
			const loading = context.messages.find(record.originalMessageId ?? '');
			if (loading && (Number(loading.flags) & MessageFlags.Loading) !== 0)
				return json(editBotMessage(context, String(loading.id), request, files));
			return json(createBotMessage(context, replyInit(context, record, Number(request.flags ?? 0)), request, files));
		})
		.on('GET', '/webhooks/:applicationId/:token/messages/:messageId', ({ params }) => {
			const record = interactions.byToken(params.token!);
			if (!record) return unknownWebhook();
			const message = context.messages.find(messageOf(record, params.messageId!) ?? '');
			return message ? json(message) : unknownMessage();
		})
		.on('PATCH', '/webhooks/:applicationId/:token/messages/:messageId', ({ params, body, files }): RouteResponse => {
			const record = interactions.byToken(params.token!);
			if (!record) return unknownWebhook();
			const request = (body ?? {}) as ApiObject;
			const invalid = invalidMessageBody(request, files, false) ?? oversizedUpload(files, uploadLimit(record));
			if (invalid) return invalid;
			const edited = editBotMessage(context, messageOf(record, params.messageId!) ?? '', request, files);
			return edited ? json(edited) : unknownMessage();
		})
		.on('DELETE', '/webhooks/:applicationId/:token/messages/:messageId', ({ params }) => {
			const record = interactions.byToken(params.token!);
			if (!record) return unknownWebhook();
			return deleteBotMessage(context, messageOf(record, params.messageId!) ?? '') ? noContent() : unknownMessage();
		});
}

/** What the first callback does: a reply (or its loading placeholder), an update of the component's message, or nothing to show. */
function acknowledge(context: FakeContext, record: InteractionRecord, data: ApiObject, files: readonly RecordedFile[]): ApiObject | undefined {
	switch (record.callbackType) {
		case InteractionResponseType.ChannelMessageWithSource:
		case InteractionResponseType.DeferredChannelMessageWithSource: {
			const deferred = record.callbackType === InteractionResponseType.DeferredChannelMessageWithSource;
			const flags = Number(data.flags ?? 0) | (deferred ? MessageFlags.Loading : 0);
			const message = createBotMessage(context, replyInit(context, record, flags), deferred ? {} : data, deferred ? [] : files);
			record.originalMessageId = String(message.id);
			return message;
		}
		case InteractionResponseType.DeferredMessageUpdate:
			record.originalMessageId = record.componentMessageId;
			return undefined;
		case InteractionResponseType.UpdateMessage:
			record.originalMessageId = record.componentMessageId;
			return editBotMessage(context, record.componentMessageId ?? '', data, files);
		default:
			// Autocomplete results, modals and pongs show no message; the recorded request is the answer.
			return undefined;
	}
}

function replyInit(context: FakeContext, record: InteractionRecord, flags: number) {
	const { payload } = record;
	const user = (payload.user ?? (payload.member as ApiObject | undefined)?.user) as ApiObject;
	const data = (payload.data ?? {}) as ApiObject;
	return {
		channelId: record.channelId,
		flags,
		type: record.type === InteractionType.ApplicationCommand ? MessageType.ChatInputCommand : MessageType.Default,
		webhookId: context.state.applicationId,
		applicationId: context.state.applicationId,
		interactionMetadata: {
			id: record.id,
			type: record.type,
			user,
			authorizing_integration_owners: payload.authorizing_integration_owners,
			...(data.name ? { name: data.name } : {})
		}
	};
}

/** The most bytes the interaction's answers may upload, as its payload told the bot. */
function uploadLimit(record: InteractionRecord): number {
	return Number(record.payload.attachment_size_limit);
}
