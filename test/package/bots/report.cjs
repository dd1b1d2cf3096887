// Runs what SapphireClient#login runs before it connects (the plugins' pre-login hooks, then every
// store's loadAll), so the built plugin is exercised without a gateway.
module.exports = async function report({ SapphireClient, container, MemoryEvents, format }) {
	const client = new SapphireClient({
		intents: [],
		baseUserDirectory: null,
		rest: { api: 'http://127.0.0.1:9/api', retries: 0, timeout: 2000 },
		memory: { storeUrl: process.env.BOT_STORE_URL }
	});
	for (const plugin of SapphireClient.plugins.values('preLogin')) await plugin.hook.call(client, client.options);
	await Promise.all([...client.stores.values()].map((store) => store.loadAll()));
	const names = (store) => [...container.stores.get(store).keys()].sort();
	const recorded = new Promise((resolve) => client.once(MemoryEvents.TurnRecorded, (_turn, result) => resolve(result)));
	client.emit(MemoryEvents.TurnCompleted, {
		userId: '1',
		serverId: null,
		channelId: '2',
		history: [{ role: 'user', authorId: '1', text: 'hello from ' + format, messageId: '3' }],
		responses: [{ text: 'hi', personaId: 'sol', messageId: '4' }]
	});
	const result = await recorded;
	const context = await container.memory.buildContext({ userId: '1', serverId: null, channelId: '2', personaId: 'sol', query: 'hello' });
	console.log(
		JSON.stringify({
			format,
			commands: names('commands'),
			listeners: names('listeners'),
			handlers: names('interaction-handlers'),
			result,
			context: context.text
		})
	);
	await client.destroy();
	process.exit(0);
};
