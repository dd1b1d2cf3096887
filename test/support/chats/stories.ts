import type { Random } from '../conversations/random';
import { alias, anyName, type ChatCast, type Person } from './cast';

/** Who says a line of a story: the one whose news it is, or the one listening. */
export type Teller = 'teller' | 'listener';

/** One line of a story; `key` marks a line a question names as its evidence. */
export interface Said {
	who: Teller;
	text: string;
	key?: string;
}

export type ChatQuestionKind = 'multi-hop' | 'date' | 'single-hop' | 'open';

/**
 * Something that happens to one of the two speakers, told over several days (an episode a day, each a few bursts), and
 * the questions it answers. A question may name the day an episode was told: `{day:1}` is filled with episode 1's
 * date, written as people write dates ("on the 9th", "on March 9", "last Saturday").
 */
export interface StoryPlan {
	episodes: Said[][];
	questions: { kind: ChatQuestionKind; question: string; keys: string[] }[];
	/** Words the banter drops on other days, so the story's names alone do not find its evidence. */
	mentions: string[];
	/** Lines on the story's topic that say nothing new, said on other days as people keep coming back to what is on their mind. */
	chatter: string[];
}

export type Story = (random: Random, cast: ChatCast, teller: Person) => StoryPlan;

const t = (text: string, key?: string): Said => ({ who: 'teller', text, ...(key ? { key } : {}) });
const l = (text: string): Said => ({ who: 'listener', text });

const CHEERS = ['omg', 'YESSS', 'wait really??', 'no way!!', 'proud of u', 'yay!!', 'love that', 'that is so good', 'aaaa', '🎉🎉'];
const WINCES = ['noooo', 'ugh sorry', 'oh no', 'that sucks', '😭', 'rip', 'oof', 'nightmare'];
const cheer = (r: Random) => l(r.pick(CHEERS));
const wince = (r: Random) => l(r.pick(WINCES));

const job: Story = (r, c, p) => {
	const company = r.pick(['Fernwood Bakery', 'Halden & Co', 'the Northgate library', 'Brightwater Dental', 'Kestrel Games', 'the council']);
	const role = r.pick(['receptionist', 'junior designer', 'shift supervisor', 'data assistant', 'events coordinator']);
	const topic = r.pick(['excel', 'customer complaints', 'my gap year', 'teamwork', 'a spreadsheet test']);
	return {
		episodes: [
			[t('ugh'), t(`applied for that ${role} job`, 'a'), t(`at ${company}`, 'a2'), t('dont get excited'), l('fingers crossed!!')],
			[t('interview done'), t(`they asked about ${topic} for like 20 mins`, 'i'), t('😭'), l('lol how did it go'), t('fine i think??')],
			[t('OMG'), t('guess what'), t('i got it', 'b'), t(`the ${company.replace(/^the /, '')} job!!!`, 'b2'), cheer(r), l('when do u start')],
			[t('first day done', 'd'), t('everyone seems nice'), t('my desk is by the window'), l('yay how was it')]
		],
		questions: [
			{ kind: 'date', question: `When did ${anyName(r, p)} start the new job?`, keys: ['d'] },
			{ kind: 'single-hop', question: `What role did ${anyName(r, p)} apply for?`, keys: ['a'] },
			{ kind: 'multi-hop', question: `Which place hired ${anyName(r, p)}, and what did the interview go on about?`, keys: ['b2', 'i'] }
		],
		mentions: [company.replace(/^the /, ''), 'job', 'interview'],
		chatter: [
			'job stuff is stressing me out',
			'still no word about the job',
			'new job nerves',
			'work work work',
			'cant stop thinking about that interview'
		]
	};
};

const flat: Story = (r, c, p) => {
	const area = r.pick(['Hackney', 'Headingley', 'Roath', 'Kelham Island', 'Finnieston', 'Stokes Croft']);
	const rent = r.pick(['1150', '925', '1400', '780', '1320']);
	return {
		episodes: [
			[t(`went to see a flat in ${area} today`, 'a'), t(`2 bed, ${rent} a month`, 'a2'), t('bit small but the light is nice'), l('ooo')],
			[t('WE GOT THE FLAT', 'b'), t('signing friday'), cheer(r), cheer(r)],
			[t('moving day', 'c'), t('my back is destroyed'), t('[photo: stacked cardboard boxes in an empty living room]', 'c2'), wince(r)]
		],
		questions: [
			{ kind: 'single-hop', question: `How much rent does ${anyName(r, p)} pay for the new place?`, keys: ['a2'] },
			{ kind: 'date', question: `When did ${anyName(r, p)} move house?`, keys: ['c'] },
			{
				kind: 'multi-hop',
				question: `Which neighbourhood is ${anyName(r, p)}'s new flat in, and how many bedrooms does it have?`,
				keys: ['a', 'a2']
			},
			{ kind: 'multi-hop', question: `Did ${anyName(r, p)} get the flat they viewed, and what did moving day look like?`, keys: ['b', 'c2'] }
		],
		mentions: [area, 'flat'],
		chatter: [`flat hunting is hell`, `${area} is so nice tho`, 'the new place needs curtains', 'so many boxes still', 'landlord hasnt replied']
	};
};

const trip: Story = (r, c, p) => {
	const [place, dish, photo] = r.pick([
		['Porto', 'francesinha', 'a street of blue and white tiled houses in the sun'],
		['Seville', 'churros', 'orange trees in a courtyard with a fountain'],
		['Copenhagen', 'smørrebrød', 'colourful houses along a canal with boats'],
		['Naples', 'pizza fritta', 'a crowded street with washing lines between buildings'],
		['Krakow', 'pierogi', 'a big square with a cloth hall and horse carriages']
	] as const);
	const price = r.pick(['£38', '£62', '£19', '£85']);
	return {
		episodes: [
			[t(`booked ${place}!!`, 'a'), t(`flights were only ${price}`, 'a2'), l('jealous'), l('who u going with')],
			[t(`[photo: ${photo}]`, 'p'), t('its so pretty here'), t(`had ${dish} three times already`, 'd'), l('stop im starving')],
			[t('back home', 'e'), t(`already miss ${place}`), l('welcome back!!')]
		],
		questions: [
			{ kind: 'single-hop', question: `Where did ${anyName(r, p)} go on holiday?`, keys: ['a'] },
			{ kind: 'multi-hop', question: `What food did ${anyName(r, p)} keep eating abroad, and what did the flights cost?`, keys: ['d', 'a2'] },
			{ kind: 'date', question: `When did ${anyName(r, p)} get back from ${place}?`, keys: ['e'] },
			{ kind: 'single-hop', question: `What did the photo from ${anyName(r, p)}'s trip show?`, keys: ['p'] }
		],
		mentions: [place, 'holiday', 'flights'],
		chatter: [`${place} countdown`, 'need to pack', 'holiday mode', 'flights make me anxious', `cant stop looking at ${place} pics`]
	};
};

const baby: Story = (r, c, p) => {
	const name = r.pick(['Iris', 'Maeve', 'Ada', 'Nora', 'Elsie']);
	const kilos = r.pick(['3.2', '2.9', '3.6', '3.4']);
	const sister = p === c.member ? c.sister : { name: r.pick(['Hannah', 'Lucy', 'Grace']), aliases: [] };
	return {
		episodes: [
			[t(`${sister.name} went into labour`, 'a'), t('im shaking'), l('omg keep me posted')],
			[
				t(`${sister.aliases[0] ?? sister.name} had the baby`, 'b'),
				t(`a girl, ${name}`, 'b2'),
				t(`${kilos} kg`, 'b3'),
				cheer(r),
				l('congrats auntie!!')
			]
		],
		questions: [
			{ kind: 'single-hop', question: `What did ${anyName(r, p)}'s sister call her baby?`, keys: ['b2'] },
			{ kind: 'date', question: `When was ${sister.aliases.length > 0 ? anyName(r, sister) : sister.name}'s baby born?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `How much did the baby weigh, and was it a boy or a girl?`, keys: ['b3', 'b2'] }
		],
		mentions: [sister.name, 'baby'],
		chatter: [`${sister.name} is so tired`, 'baby pics incoming', 'the baby is so tiny', 'aunt life', `${sister.name} sent another video`]
	};
};

const injury: Story = (r, c, p) => {
	const sport = r.pick(['netball', 'five a side', 'climbing', 'parkrun', 'badminton']);
	const weeks = r.pick(['3', '4', '6']);
	return {
		episodes: [
			[t('ow'), t(`rolled my ankle at ${sport}`, 'a'), t('its massive'), wince(r), l('ice it!!')],
			[t(`physio says no running for ${weeks} weeks`, 'b'), t('im going to go insane'), l('lol rest!!')]
		],
		questions: [
			{ kind: 'single-hop', question: `How did ${anyName(r, p)} hurt their ankle?`, keys: ['a'] },
			{ kind: 'multi-hop', question: `What injury did ${anyName(r, p)} get, and how long is the break from running?`, keys: ['a', 'b'] },
			{ kind: 'date', question: `When did ${anyName(r, p)} get injured?`, keys: ['a'] }
		],
		mentions: [sport, 'ankle'],
		chatter: ['ankle still sore', 'hobbling around', 'going stir crazy without running', `miss ${sport}`, 'the physio exercises are so boring']
	};
};

const kitten: Story = (r, c, p) => ({
	episodes: [
		[t('we are fostering a kitten!!', 'a'), t(`her name is ${c.pet}`, 'b'), cheer(r), l('PICS')],
		[t('[photo: a small grey kitten asleep inside a shoebox]', 'p'), t(`${c.pet} has claimed the shoebox`), l('im dead 😭')],
		[t(`${c.pet} knocked my monstera off the shelf`, 'c'), t('soil everywhere'), l('LOL')]
	],
	questions: [
		{ kind: 'single-hop', question: `What did ${c.pet} break?`, keys: ['c'] },
		{ kind: 'single-hop', question: `Where does the foster kitten like to sleep?`, keys: ['p'] },
		{
			kind: 'multi-hop',
			question: `What is the name of the kitten ${anyName(r, p)} is fostering, and what plant did it knock over?`,
			keys: ['b', 'c']
		}
	],
	mentions: [c.pet, 'kitten'],
	chatter: [`${c.pet} is asleep on me`, `${c.pet} says hi`, 'kitten zoomies at 3am', `${c.pet} ate a plant again`, 'the kitten is so needy']
});

const pottery: Story = (r, c, p) => {
	const day = r.pick(['tuesday', 'thursday', 'wednesday']);
	return {
		episodes: [
			[t(`signed up for a pottery class on ${day}s`, 'a'), l('ooh fancy')],
			[t('[photo: a lopsided blue ceramic mug on a workbench]', 'p'), t('my first mug lol'), t('it leaks', 'p2'), l('its beautiful')],
			[t('teacher said my bowl was the best in the class', 'c'), t('peaked'), l('hahaha')]
		],
		questions: [
			{ kind: 'single-hop', question: `Which evening is ${anyName(r, p)}'s pottery class?`, keys: ['a'] },
			{
				kind: 'multi-hop',
				question: `What did ${anyName(r, p)} make at the first pottery session, and what was wrong with it?`,
				keys: ['p', 'p2']
			},
			{ kind: 'open', question: `Is ${anyName(r, p)} getting better at ceramics?`, keys: ['c'] }
		],
		mentions: ['pottery', 'class'],
		chatter: ['pottery tonight', 'clay under my nails', 'class was fun', 'my hands are so dry from the clay', 'i want a pottery wheel']
	};
};

const dating: Story = (r, c, p) => {
	const { partner } = c;
	const where = r.pick(['the climbing gym', 'a friend of a friend', 'hinge', 'the book club']);
	const venue = r.pick(['a jazz bar', 'the new ramen place', 'an escape room', 'the planetarium']);
	return {
		episodes: [
			[t('so'), t('i have a date'), t(`with ${partner.name} from ${where}`, 'a'), l('WHAT'), l('tell me everything')],
			[t(`${alias(r, partner)} took me to ${venue}`, 'b'), t('it was actually really cute'), l('stoppp')],
			[t(`${alias(r, partner)} met my parents on sunday`, 'c'), t('dad liked them'), l('big step!!')]
		],
		questions: [
			{ kind: 'single-hop', question: `Where did ${anyName(r, partner)} take ${anyName(r, p)} on their date?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `How did ${anyName(r, p)} meet ${anyName(r, partner)}, and where did they go?`, keys: ['a', 'b'] },
			{ kind: 'date', question: `When did ${anyName(r, partner)} meet ${anyName(r, p)}'s parents?`, keys: ['c'] }
		],
		mentions: [partner.name, ...partner.aliases.slice(0, 1), 'date'],
		chatter: [
			`${partner.name} says hi`,
			`${partner.aliases[0]} is cooking`,
			'date night',
			`${partner.name} is so annoying lol`,
			`seeing ${partner.aliases[0]} later`
		]
	};
};

const coworker: Story = (r, c, p) => {
	const person = c.coworker;
	const food = r.pick(['homemade baklava', 'a massive lemon drizzle', 'jollof for everyone', 'doughnuts']);
	const city = r.pick(['Dublin', 'Edinburgh', 'Lisbon', 'Berlin']);
	return {
		episodes: [
			[t('new person started at work'), t(`${person.name}, says to call them ${person.aliases[0]}`, 'a'), l('vibes?'), t('good vibes')],
			[t(`${person.aliases[0]} brought in ${food}`, 'b'), t('i love them already'), l('marry them')],
			[t(`${person.aliases[0]} is leaving already??`, 'c'), t(`moving to ${city}`, 'c2'), wince(r)]
		],
		questions: [
			{ kind: 'single-hop', question: `What did ${alias(r, person)} bring to the office?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `Who is ${anyName(r, p)}'s new coworker, and which city are they moving to?`, keys: ['a', 'c2'] },
			{ kind: 'date', question: `When did ${anyName(r, p)} hear that ${person.name} was leaving?`, keys: ['c'] },
			{ kind: 'multi-hop', question: `What is the new coworker's full name, and what did they bring in?`, keys: ['a', 'b'] }
		],
		mentions: [person.aliases[0]!, 'work'],
		chatter: [
			`${person.aliases[0]} is hilarious`,
			`${person.aliases[0]} and i had lunch`,
			'work gossip incoming',
			`${person.aliases[0]} said hi`,
			'office is dead today'
		]
	};
};

const car: Story = (r, c, p) => {
	const part = r.pick(['the alternator', 'the clutch', 'the starter motor', 'a dead battery']);
	const cost = r.pick(['£420', '£180', '£650', '£95']);
	return {
		episodes: [
			[t('car wouldnt start this morning', 'a'), t('had to get a taxi', 'a2'), wince(r)],
			[t(`garage says its ${part}`, 'b'), t(cost, 'b2'), t('😭😭'), l('daylight robbery')]
		],
		questions: [
			{ kind: 'single-hop', question: `What was wrong with ${anyName(r, p)}'s car?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `What broke on ${anyName(r, p)}'s car and what did fixing it cost?`, keys: ['b', 'b2'] },
			{ kind: 'date', question: `When did ${anyName(r, p)}'s car break down?`, keys: ['a'] },
			{
				kind: 'multi-hop',
				question: `How did ${anyName(r, p)} get around when the car failed, and what did the garage find?`,
				keys: ['a2', 'b']
			}
		],
		mentions: ['car', 'garage'],
		chatter: [
			'car is being weird',
			'hate driving in this',
			'the garage still hasnt called',
			'need to get the car washed',
			'car stuff is so expensive'
		]
	};
};

const drivingTest: Story = (r, c, p) => {
	const minors = r.pick(['3', '5', '2']);
	return {
		episodes: [
			[t('driving test tomorrow', 'a'), t('so nervous', 'a2'), l('u got this')],
			[t('PASSED', 'b'), t(`only ${minors} minors`, 'b2'), cheer(r), cheer(r)]
		],
		questions: [
			{ kind: 'date', question: `When did ${anyName(r, p)} pass the driving test?`, keys: ['b'] },
			{ kind: 'single-hop', question: `How many minors did ${anyName(r, p)} get on the driving test?`, keys: ['b2'] },
			{ kind: 'multi-hop', question: `How was ${anyName(r, p)} feeling before the driving test, and how did it go?`, keys: ['a2', 'b'] }
		],
		mentions: ['driving', 'test'],
		chatter: ['driving lesson later', 'parallel parking is evil', 'test nerves', 'my instructor is so calm', 'roundabouts scare me']
	};
};

const birthday: Story = (r, c, p) => {
	const gift = r.pick(['a vinyl player', 'a silk scarf', 'concert tickets', 'a sourdough starter kit']);
	const { sister } = c;
	return {
		episodes: [
			[t(`its ${alias(r, sister)}s birthday on saturday`, 'a'), t(`got her ${gift}`, 'b'), l('cute')],
			[t(`she loved the ${gift.replace(/^an? /, '')}`, 'c'), t('[photo: a birthday cake with sparklers on a kitchen table]', 'p'), cheer(r)]
		],
		questions: [
			{ kind: 'single-hop', question: `What present did ${anyName(r, p)} give ${anyName(r, sister)}?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `Whose birthday did ${anyName(r, p)} celebrate, and what did the cake look like?`, keys: ['a', 'p'] }
		],
		mentions: [sister.name, 'birthday'],
		chatter: [
			`${sister.name} keeps hinting about her birthday`,
			'need a card',
			'birthday plans',
			'what do u even get someone',
			`${sister.name} is being dramatic`
		]
	};
};

const engagement: Story = (r, c, p) => {
	const [a, b] = r.sample(['Dev', 'Marta', 'Callum', 'Aisha', 'Rhys', 'Yusuf', 'Freya'], 2);
	const place = r.pick(['the top of Arthurs Seat', 'a karaoke bar', 'their allotment', 'the beach at sunrise']);
	return {
		episodes: [
			[t(`${a} and ${b} got engaged!!`, 'a'), t(`proposed at ${place}`, 'a2'), l('STOP'), l('thats so romantic')],
			[t(`wedding is next june apparently`, 'c'), t(`${a} asked me to be a bridesmaid`), l('omg!!')]
		],
		questions: [
			{ kind: 'single-hop', question: `Where did the proposal happen?`, keys: ['a2'] },
			{ kind: 'multi-hop', question: `Who got engaged, and when is the wedding?`, keys: ['a', 'c'] }
		],
		mentions: [a!, b!, 'wedding'],
		chatter: ['wedding chat again', `${a} sent the save the date`, 'what do i wear to a wedding', `${b} is so stressed`, 'hen do planning']
	};
};

const cooking: Story = (r, c, p) => {
	const dish = r.pick(['dal from scratch', 'a lasagne', 'shakshuka', 'bao buns', 'a massive paella']);
	return {
		episodes: [
			[t(`made ${dish}`, 'a'), t('[photo: a steaming dish on a stovetop with a wooden spoon]'), l('chef')],
			[t(`${alias(r, c.partner)} wants it again already`, 'b'), l('lol')]
		],
		questions: [
			{ kind: 'date', question: `What did ${anyName(r, p)} cook {day:0}?`, keys: ['a'] },
			{ kind: 'multi-hop', question: `What dish did ${anyName(r, p)} make that someone wanted again?`, keys: ['a', 'b'] }
		],
		mentions: ['cook', 'dinner'],
		chatter: ['what should i cook', 'dinner ideas pls', 'cooking is a lot', 'i burnt the rice', 'ordering in tonight']
	};
};

const concert: Story = (r, c, p) => {
	const band = r.pick(['Wet Leg', 'Fontaines DC', 'Little Simz', 'Arlo Parks', 'The Last Dinner Party']);
	return {
		episodes: [
			[t(`got tickets for ${band}`, 'a'), t('standing!!'), cheer(r)],
			[t('[photo: a stage lit purple over a crowd of raised phones]', 'p'), t('best night of my life', 'p2'), t('lost my voice'), l('jealous')]
		],
		questions: [
			{ kind: 'single-hop', question: `Which band did ${anyName(r, p)} see live?`, keys: ['a'] },
			{ kind: 'date', question: `What did ${anyName(r, p)} do {day:1}?`, keys: ['p2'] },
			{ kind: 'multi-hop', question: `Which band did ${anyName(r, p)} see, and how was the night?`, keys: ['a', 'p2'] }
		],
		mentions: [band.replace(/^The /, ''), 'gig'],
		chatter: [`${band} on repeat`, 'gig outfit?', 'ears still ringing', `${band} were so good`, 'need more gigs in my life']
	};
};

/** Every kind of story a chat draws from. */
export const STORIES: readonly Story[] = [
	job,
	flat,
	trip,
	baby,
	injury,
	kitten,
	pottery,
	dating,
	coworker,
	car,
	drivingTest,
	birthday,
	engagement,
	cooking,
	concert
];
