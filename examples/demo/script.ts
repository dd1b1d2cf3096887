import { gunzipSync } from 'node:zlib';
import { container } from '@sapphire/framework';
import type { UserExport } from '../../src';
import type { DemoDriver } from './driver';
import type { Narrator } from './narrator';
import { GENERAL, JUN, MAYA, MAYA_DM, PORTO, SOL_BOT, THEO, TRIPS } from './world';

/**
 * The scripted conversation: three members over two channels, a thread and a DM; a member who goes
 * FULL (and is forgotten); `/session status`, `export` and `clear scope:all`. Steps wait for the bot, so the run is the
 * same every time (but for clock times).
 */
export async function playScript(demo: DemoDriver, narrator: Narrator): Promise<void> {
	await demo.say(MAYA, GENERAL, `<@${SOL_BOT.id}> hi! we adopted a beagle called Biscuit last week`);
	await demo.say(THEO, GENERAL, "Sol, I'm hosting board game night on Friday at 7pm, bring snacks");
	await demo.aside(MAYA, GENERAL, 'Biscuit chewed through my headphones this morning');
	await demo.say(MAYA, GENERAL, 'Sol, what snacks go with board games?');
	// Another channel of the same server: #general's memory shows under "Other channels".
	await demo.say(THEO, TRIPS, "Sol, we're planning a trip to Porto: flights booked for June 3");
	await demo.say(JUN, PORTO, 'Sol, is there a good vegetarian place near Ribeira?');
	// The stand-in LLM calls the `remember` tool: a note in Maya's profile.
	await demo.say(MAYA, PORTO, "Sol, remember that I'm vegetarian too");
	// Three turns in #general without a summary: the context carries the nudge, and the stand-in calls update_short_term_memory.
	await demo.say(THEO, GENERAL, 'Sol, any ideas for a cooperative one?');

	// Cross-server memory is opt-in: with it, Maya's DM context recalls what she said on the server.
	await demo.session(MAYA, MAYA_DM, 'privacy', { cross_server: true });
	await demo.say(MAYA, MAYA_DM, 'what was my beagle called again?');

	// A member who goes FULL is forgotten (after a confirmation) and then invisible: the bot still answers, memory skips the turn.
	await demo.confirmed(JUN, GENERAL, 'privacy', { level: 'full' });
	await demo.say(JUN, GENERAL, 'Sol, between us: my phone number is 555-0100');

	await demo.session(THEO, GENERAL, 'status');
	const exported = await demo.session(MAYA, MAYA_DM, 'export');
	describeExport(narrator, exported.request.files[0]);

	await demo.confirmed(THEO, GENERAL, 'clear', { scope: 'all' });
	await noteTheosMemory(narrator, "Theo's export now");

	// Discord still shows Theo's messages, and the bot fetches them as history; memory does not take them back.
	await demo.say(MAYA, GENERAL, 'Sol, who is hosting game night?');
	await noteTheosMemory(narrator, "Theo's export after a turn whose history held his messages");
}

async function noteTheosMemory(narrator: Narrator, label: string): Promise<void> {
	const data = await container.memory.exportUser(THEO.id);
	narrator.note(
		`${label}: ${data.shortTerm.length} conversations, ${data.sharedShortTerm.length + data.archive.length} messages, profile: ` +
			`${data.profile ? 'yes' : 'none'}`
	);
}

function describeExport(narrator: Narrator, file: { filename: string; data: Buffer } | undefined): void {
	if (!file) throw new Error('/session export sent no file');
	// A member opens it as any .json.gz: gunzipped, it is the JSON of memory.exportUser.
	const data = JSON.parse(gunzipSync(file.data).toString('utf8')) as UserExport;
	const messages = data.shortTerm.reduce((sum, entry) => sum + entry.messages.length, 0);
	const profile = data.profile ? `${data.profile.notes.length} note${data.profile.notes.length === 1 ? '' : 's'}` : 'none';
	narrator.note(
		`attachment ${file.filename} (${file.data.length} bytes): ${data.shortTerm.length} conversations with ${messages} messages, ` +
			`${data.sharedShortTerm.length} messages in shared channels, ${data.archive.length} archived, profile: ${profile}, ` +
			`${data.topics.length} topics`
	);
}
