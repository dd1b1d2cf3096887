import type { FakeContext } from '../context';
import { discordError, json, type Router } from '../router';
import type { ApiObject } from '../types';

/** `GET /gateway/bot`, the bot's user and application, users, and opening DMs. */
export function gatewayAndUserRoutes(router: Router, context: FakeContext): void {
	const { state } = context;
	router
		.on('GET', '/gateway', () => json({ url: context.gatewayUrl() }))
		.on('GET', '/gateway/bot', () =>
			json({
				url: context.gatewayUrl(),
				shards: 1,
				session_start_limit: { total: 1000, remaining: 1000, reset_after: 0, max_concurrency: 1 }
			})
		)
		.on('GET', '/users/@me', () => json(state.botUser))
		.on('POST', '/users/@me/channels', ({ body }) => {
			const recipientId = String((body as ApiObject | undefined)?.recipient_id);
			if (!state.findUser(recipientId)) return discordError(404, 10013, 'Unknown User');
			return json(state.dmChannelWith(recipientId));
		})
		.on('GET', '/users/:userId', ({ params }) => {
			const user = state.findUser(params.userId!);
			return user ? json(user) : discordError(404, 10013, 'Unknown User');
		})
		.on('GET', '/applications/@me', () =>
			json({
				id: state.applicationId,
				name: state.botUser.username,
				description: '',
				icon: null,
				bot_public: true,
				bot_require_code_grant: false,
				flags: 0,
				bot: state.botUser,
				owner: state.botUser,
				verify_key: '0'.repeat(64),
				team: null
			})
		);
}
