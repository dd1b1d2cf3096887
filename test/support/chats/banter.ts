import type { Random } from '../conversations/random';
import { alias, anyName, type ChatCast, type Person } from './cast';

// What two friends text each other between the news: openers, short reactions, the day, and the chat's own names
// and topics dropped in passing. Most lines are under 40 characters, as real chat is.

const OPENERS = ['morning', 'hey', 'u up?', 'hiii', 'yo', 'ok so', 'help', 'guess what', 'good morning ☀️', 'hellooo'];
const CLOSERS = ['gn', 'ok gtg', 'night x', 'sleeping now', 'talk tmrw', 'bed', 'ttyl', 'ok bye x'];
const REACTIONS = [
	'lol',
	'omg',
	'yeah',
	'wait what',
	'haha',
	'same',
	'nooo',
	'ok',
	'true',
	'ikr',
	'😂',
	'😭',
	'ya',
	'hmm',
	'lmao',
	'fair',
	'stop',
	'wow',
	'mood',
	'yesss',
	'no way',
	'for real',
	'dead',
	'classic',
	'oh god',
	'ha',
	'right??',
	'k'
];
const STATEMENTS = [
	'so tired',
	'work was long',
	'what u up to',
	'just got home',
	'eating cereal for dinner',
	'cant be bothered to cook',
	'omw',
	'running late',
	'did u see that',
	'im dying',
	'the bus was so late',
	'its freezing today',
	'need coffee',
	'how was ur day',
	'not bad hbu',
	'meh',
	'cant sleep',
	'my phone is on 2%',
	'rain again',
	'at the shop, want anything',
	'watching bake off',
	'the wifi keeps dropping',
	'ordered pizza, no regrets',
	'so much laundry',
	'had the weirdest dream',
	'my neighbour is drilling again',
	'going for a walk',
	'back',
	'sorry was in the shower',
	'lunch was sad',
	'long day tbh',
	'headache',
	'literally same',
	'what time is it even',
	'did u eat',
	'forgot my keys again',
	'train cancelled',
	'this week is dragging',
	'cant wait for the weekend',
	'on a call, one sec',
	'the group chat is chaos',
	'i need a holiday',
	'my manager is being weird',
	'its so sunny!!',
	'bought a plant',
	'tidied my room finally',
	'who even am i',
	'brb',
	'that meme u sent lmao',
	'remind me tmrw'
];
/** Now and then a longer message, as people write when they have a minute. */
const LONG_STATEMENTS = [
	'honestly the commute this morning was a nightmare, two trains cancelled and i stood the whole way',
	'i keep meaning to sort out my wardrobe but every time i open it i just close it again',
	'my mum called to ask if i was eating properly and then talked about the neighbours for an hour',
	'the meeting today went on for so long that i forgot what it was even about halfway through',
	'i tried that recipe you sent but i had no garlic so it was mostly just sad pasta',
	'cannot believe how fast this month is going, feels like it was new year like last week',
	'the people upstairs have decided 2am is the perfect time to move furniture around apparently',
	'i went to the big supermarket and came out with candles and no actual food, classic me',
	'thinking of getting a bike for work but the hills here are no joke and i am so unfit',
	'finally finished that series everyone was talking about and the ending made zero sense',
	'work wants us back in the office three days a week now which is going down really well',
	'my laptop did an update in the middle of a call and everyone just watched me panic',
	'spent the whole evening looking at flights i am never going to book, very relaxing',
	'someone left a passive aggressive note about the recycling in our building, the drama',
	'{sister} is trying to organise a family dinner and the group chat is a war zone',
	'{partner} has started a sourdough thing and the kitchen is covered in flour permanently',
	'{pet} woke me up at 5 by sitting on my face, so that is how my day started',
	'had a long chat with {sister} about {topic} and i think we are on the same page now'
];
/** Everyday news said in passing, built from parts so that three weeks seldom repeat a line; its words are the ones questions use too. */
const LEADS = ['', '', '', 'ok ', 'ugh ', 'lol ', 'honestly ', 'so ', 'btw ', 'random but ', 'update: '];
const DOINGS = [
	'work was {mood} today',
	'{time} was {mood}',
	'made {food} for dinner',
	'ate {food} at my desk again',
	'going to the {place} later',
	'just got back from the {place}',
	'the {place} was so busy',
	'need a new {thing}',
	'my {thing} is broken again',
	'bought a {thing} i dont need',
	'the new {thing} at work is {mood}',
	'started a new {hobby} thing',
	'thinking about trying {hobby}',
	'day off {time}',
	'have to work {time}',
	'meeting {time} about the new {thing}',
	'training at work {time}, some test thing',
	'{time} we should get {food}',
	'my car is making that noise again',
	'the bus took {minutes} minutes',
	'walked {minutes} minutes in the rain',
	'booked a {place} for {time}',
	'my back hurts from the {thing}',
	'cleaned the whole flat',
	'the flat is freezing',
	'holiday photos from last year popped up',
	'someone at work had a birthday so cake',
	'my class {time} got moved',
	'the kids next door are screaming',
	'my mum wants to visit {time}',
	'{person} texted me out of nowhere'
];
const MOODS = ['fine', 'long', 'dead', 'chaos', 'weird', 'actually nice', 'so boring', 'a lot', 'grim', 'not bad'];
const TIMES = ['tomorrow', 'tonight', 'this morning', 'on saturday', 'on monday', 'next week', 'at the weekend', 'friday'];
const FOODS = ['pasta', 'noodles', 'a curry', 'toast', 'soup', 'a burrito', 'leftovers', 'pancakes', 'a salad', 'chips'];
const PLACES = ['gym', 'shop', 'pub', 'park', 'library', 'post office', 'cafe', 'station', 'market', 'dentist'];
const THINGS = ['laptop', 'phone', 'chair', 'charger', 'printer', 'kettle', 'jacket', 'headphones', 'system', 'coffee machine'];
const HOBBIES = ['running', 'yoga', 'crochet', 'climbing', 'baking', 'drawing', 'swimming', 'guitar'];
const PEOPLE = ['my cousin', 'my ex', 'my landlord', 'my old flatmate', 'my boss', 'my dentist'];
const TAILS = ['', '', '', ' lol', ' 😭', ' haha', ' tbh', '...', ' 🙃', ' ugh', '!!'];

/** Lines that name the chat's people and topics and say nothing new. */
const MENTIONS = [
	'{sister} keeps sending me memes',
	'{sister} says hi',
	'{partner} is being so annoying lol',
	'{partner} made tea, angel',
	'{coworker} was in a mood today',
	'{pet} is being so weird',
	'still thinking about {topic}',
	'any news on the {topic} thing?',
	'{topic} again lol',
	'did i tell u about {topic}',
	'i miss {city}',
	'{city} was so busy today',
	'talked to {sister} for ages'
];
const QUESTIONS = ['how r u', 'wyd', 'hows ur week', 'u ok?', 'did u sleep', 'any plans tonight', 'free this weekend?', 'how was work'];

/** Ways to call the other speaker by name. */
const VOCATIVES = [
	'omg {name}',
	'{name}!!',
	'morning {name}',
	'night {name} x',
	'thanks {name}',
	'love u {name}',
	'hey {name}',
	'{name} stop',
	'ok {name}'
];

/**
 * A line of banter by a speaker talking to `addressee`: now and then one that calls them by one of their names, names the
 * chat's people or topics, or comes back to one of its stories.
 */
export function banterLine(random: Random, cast: ChatCast, topics: readonly string[], chatter: readonly string[], addressee: Person): string {
	if (random.chance(0.05)) return random.pick(VOCATIVES).replace('{name}', anyName(random, addressee));
	const roll = random.next();
	if (chatter.length > 0 && random.chance(0.12)) return random.pick(chatter);
	if (roll < 0.35) return random.pick(REACTIONS);
	if (roll < 0.47) return fill(random.pick(MENTIONS), random, cast, topics);
	if (roll < 0.55) return random.pick(QUESTIONS);
	if (roll < 0.64) return fill(random.pick(LONG_STATEMENTS), random, cast, topics);
	if (roll < 0.82) return everyday(random);
	return random.pick(STATEMENTS);
}

function everyday(random: Random): string {
	const doing = random.pick(DOINGS).replace(/\{(\w+)\}/g, (_, slot: string) => {
		switch (slot) {
			case 'mood':
				return random.pick(MOODS);
			case 'time':
				return random.pick(TIMES);
			case 'food':
				return random.pick(FOODS);
			case 'place':
				return random.pick(PLACES);
			case 'thing':
				return random.pick(THINGS);
			case 'hobby':
				return random.pick(HOBBIES);
			case 'person':
				return random.pick(PEOPLE);
			default:
				return String(random.int(10, 55));
		}
	});
	return `${random.pick(LEADS)}${doing}${random.pick(TAILS)}`;
}

export function opener(random: Random): string {
	return random.pick(OPENERS);
}

export function closer(random: Random): string {
	return random.pick(CLOSERS);
}

export function reaction(random: Random): string {
	return random.pick(REACTIONS);
}

function fill(template: string, random: Random, cast: ChatCast, topics: readonly string[]): string {
	return template.replace(/\{(\w+)\}/g, (_, name: string) => {
		switch (name) {
			case 'sister':
				return random.chance(0.5) ? cast.sister.name : alias(random, cast.sister);
			case 'partner':
				return random.chance(0.5) ? cast.partner.name : alias(random, cast.partner);
			case 'coworker':
				return alias(random, cast.coworker);
			case 'topic':
				return topics.length > 0 ? random.pick(topics) : 'that';
			default:
				return String(cast[name as 'pet' | 'city']);
		}
	});
}
