import type { Cast, Line } from './facts';
import type { Random } from './random';

// Chat that answers no question: greetings, the weather, the day, and the conversation's own names and topics
// dropped in passing, as people who talk for months do.

const OPENINGS = ['hey {persona}', 'hiii', 'evening!', 'ok i survived the day', 'hello hello', 'morning {persona} ☕', 'yo', 'guess who'];
const GREETINGS = ['Hey {user}! How are you doing?', 'Hi {user}! How was your day?', 'Hello! What have you been up to?', 'Hey you. Long day?'];
const CLOSINGS = ['ok gotta go, talk later', 'night!', 'bed time, bye', 'off to make dinner, ttyl', 'ok that was nice. later!'];
const FAREWELLS = ['Night {user}! 🌙', 'Talk soon!', 'Enjoy your evening!', 'Bye! Say hi to {partner}.'];

// A member's message is a lead, a statement and now and then a tail, so months of chat seldom repeat a line.
const LEADS = ['', '', 'ok so ', 'honestly ', 'lol ', 'ugh ', 'random but ', 'update: ', 'not gonna lie ', 'so yeah, '];
const STATEMENTS = [
	'the weather is grim again, rain all day and my shoes are soaked',
	'finally some sun today so i sat outside at lunch',
	'i had the strangest dream last night about missing a train',
	'barely slept, the neighbours had a party until 3',
	'the neighbours are drilling AGAIN, it has been a whole week',
	'made a big pot of soup for the week, it was fine',
	'{pet} is snoring next to me like a little engine',
	'{pet} stole a sock and ran off with it, classic {pet}',
	'{pet} refused to go out in the rain this morning',
	'{partner} is making curry tonight so the flat smells amazing',
	'{partner} and i argued about whose turn it was to do the dishes',
	'{partner} fell asleep on the sofa at 9 again',
	'{sibling} called and we talked for an hour about nothing much',
	'{sibling} sent a photo of her new haircut, it looks great',
	'{friend} came over for tea and we gossiped for ages',
	'{friend} wants to do a pub quiz next week, we always lose',
	'the work meeting today could have been an email',
	'my manager moved the deadline forward by a week, thanks',
	'the bus was late twice this week, might start cycling',
	'watched a documentary about octopuses, they are so weird',
	'my basil plant is dying and i have no idea why',
	'still thinking about the {topic} thing from before',
	'the {topic} stuff keeps popping into my head',
	'remind me to tell you more about {topic} some time',
	'not much going on today, just chores',
	'trying to drink more water this month, going badly',
	'went for a long walk by the river, cleared my head',
	'the supermarket was out of oat milk so i panicked',
	'spent the whole afternoon doing laundry and ironing',
	'i should really call my mum more often',
	'bought new noise cancelling headphones, game changer for the commute',
	'{partner} says hi by the way',
	'we tried a board game night with {friend}, total chaos',
	'mondays should be illegal',
	'my phone screen cracked, third time this year',
	'found an old photo album at my parents place, so much bad hair',
	'tried a new coffee place near work, overpriced but nice',
	'it has been one of those weeks where nothing goes right',
	'cleaned the whole kitchen, feel like a new person',
	'the heating broke for a day, we lived in blankets',
	'my back hurts from sitting all day, need a better chair',
	'had pizza for dinner for the third time this week, no shame',
	'there was a fox in the garden this morning, just staring at me',
	'booked a dentist appointment finally, dreading it',
	'spent way too much money on books again',
	'the new season of that baking show is out, very cosy',
	'got caught in a hailstorm on the way home',
	'my laptop keeps freezing, it is so old now',
	'{friend} is moving offices and keeps complaining about it',
	'thinking of repainting the bedroom, maybe green',
	'the train was cancelled so i worked from home, bliss',
	'i keep forgetting to reply to my emails',
	'had a really good chat with {sibling} about our parents',
	'someone at work brought homemade brownies, the day was saved'
];
const TAILS = ['', '', '', ' lol', ' 🙃', ' haha', '. anyway', ' tbh', '...', ' 😅'];
const REACTIONS = [
	'Ha, relatable.',
	'Oh no! That sounds annoying.',
	'Honestly that sounds like a nice day.',
	"That's so you. 😄",
	'Tell me more!',
	'Hmm, how did that make you feel?',
	'Classic.',
	'I hope tomorrow is kinder to you.',
	'Aw, I love that.',
	'Fair enough!',
	'Sounds like you needed that.',
	'Ooh, how did it go?',
	'Wait, really?',
	"You'll figure it out, you always do.",
	'That would drive me up the wall.',
	'Small wins count!',
	'I am laughing at the mental image.'
];
// A persona keeps the threads of earlier talk alive: its questions name them without adding anything.
const CALLBACKS = [
	' How is {pet} doing, by the way?',
	' Any news on the {topic} front?',
	' Is {partner} doing okay?',
	' Did you ever sort out the {topic} thing?',
	' Say hi to {sibling} from me.',
	' How is {friend}?',
	''
];
const FOLLOW_UPS = [
	'yeah exactly',
	'lol',
	'right??',
	'anyway',
	'true',
	'mhm',
	'idk',
	'haha yes',
	'probably',
	'ok fair',
	'yep, will do',
	'she is good!',
	'all fine'
];

/** Fills `{user}`, `{pet}`, … and `{topic}` (a word of the conversation's facts). */
function fill(template: string, cast: Cast, topics: readonly string[], random: Random): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'topic' ? random.pick(topics) : (cast[name as keyof Cast] ?? name)));
}

export function opening(random: Random, cast: Cast): Line[] {
	return [
		{ who: 'user', text: fill(random.pick(OPENINGS), cast, [], random) },
		{ who: 'persona', text: fill(random.pick(GREETINGS), cast, [], random) }
	];
}

export function closing(random: Random, cast: Cast): Line[] {
	return [
		{ who: 'user', text: random.pick(CLOSINGS) },
		{ who: 'persona', text: fill(random.pick(FAREWELLS), cast, [], random) }
	];
}

/** A few lines of small talk, now and then a second message before the reply. */
export function chatter(random: Random, cast: Cast, topics: readonly string[]): Line[] {
	const statement = `${random.pick(LEADS)}${random.pick(STATEMENTS)}${random.pick(TAILS)}`;
	const lines: Line[] = [{ who: 'user', text: fill(statement, cast, topics, random) }];
	if (random.chance(0.25)) lines.push({ who: 'user', text: random.pick(FOLLOW_UPS) });
	const callback = random.chance(0.35) ? random.pick(CALLBACKS) : '';
	lines.push({ who: 'persona', text: fill(`${random.pick(REACTIONS)}${callback}`, cast, topics, random) });
	if (random.chance(0.3)) lines.push({ who: 'user', text: random.pick(FOLLOW_UPS) }, { who: 'persona', text: random.pick(REACTIONS) });
	return lines;
}
