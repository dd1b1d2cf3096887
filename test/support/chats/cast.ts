import type { Random } from '../conversations/random';

/** A person of a chat: the name Discord shows (or the name others use), and the other names they go by. */
export interface Person {
	/** The name the chat mostly uses. */
	name: string;
	/** Nicknames and other spellings, used in the chat and in questions alike. */
	aliases: string[];
}

/** The two speakers of a chat and the people and things they keep talking about. */
export interface ChatCast {
	/** The member (the speaker who asks). */
	member: Person;
	/** The member's Discord display name: sometimes a handle that is none of their names. */
	memberDisplayName: string;
	/** The other speaker, recorded as the persona. */
	friend: Person;
	friendDisplayName: string;
	sister: Person;
	partner: Person;
	coworker: Person;
	pet: string;
	city: string;
}

const MEMBERS: Person[] = [
	{ name: 'Katherine', aliases: ['Kat', 'Kath', 'Katie'] },
	{ name: 'Elizabeth', aliases: ['Liz', 'Lizzie', 'Beth'] },
	{ name: 'Alexandra', aliases: ['Alex', 'Sasha', 'Lexi'] },
	{ name: 'Mohammed', aliases: ['Mo', 'Mohamed', 'Hamoudi'] },
	{ name: 'Jonathan', aliases: ['Jon', 'Jonny', 'Jonathon'] },
	{ name: 'Siobhan', aliases: ['Shiv', 'Shivvy', 'Vonnie'] },
	{ name: 'Nicholas', aliases: ['Nick', 'Nico', 'Nicky'] },
	{ name: 'Anastasia', aliases: ['Ana', 'Nastya', 'Stacy'] },
	{ name: 'Christopher', aliases: ['Chris', 'Topher', 'Kit'] },
	{ name: 'Margarida', aliases: ['Guida', 'Maggie', 'Marg'] },
	{ name: 'Benjamin', aliases: ['Ben', 'Benji', 'Benny'] },
	{ name: 'Oluwaseun', aliases: ['Seun', 'Shay', 'Seunny'] }
];
const FRIENDS: Person[] = [
	{ name: 'Jamie', aliases: ['Jay', 'Jaime', 'Jim'] },
	{ name: 'Priyanka', aliases: ['Priya', 'Pri', 'Pree'] },
	{ name: 'Daniel', aliases: ['Dan', 'Danny', 'Dani'] },
	{ name: 'Theresa', aliases: ['Tess', 'Tessa', 'Terri'] },
	{ name: 'Samuel', aliases: ['Sam', 'Sammy', 'Samu'] },
	{ name: 'Gabriela', aliases: ['Gabi', 'Gabby', 'Ela'] },
	{ name: 'Matthew', aliases: ['Matt', 'Matty', 'Mat'] },
	{ name: 'Yasmin', aliases: ['Yas', 'Yaz', 'Jasmine'] }
];
const SISTERS: Person[] = [
	{ name: 'Rebecca', aliases: ['Becca', 'Becky', 'Bex'] },
	{ name: 'Victoria', aliases: ['Tori', 'Vicky', 'Vic'] },
	{ name: 'Eleanor', aliases: ['Ellie', 'Nell', 'Elle'] },
	{ name: 'Josephine', aliases: ['Jo', 'Josie', 'Jojo'] },
	{ name: 'Susannah', aliases: ['Suze', 'Susie', 'Sanna'] }
];
const PARTNERS: Person[] = [
	{ name: 'Oliver', aliases: ['Ollie', 'Olly', 'Ol'] },
	{ name: 'Rafael', aliases: ['Rafa', 'Raf', 'Raphael'] },
	{ name: 'Joanna', aliases: ['Jo', 'Jojo', 'Joanne'] },
	{ name: 'Frederick', aliases: ['Fred', 'Freddie', 'Freddy'] },
	{ name: 'Isabelle', aliases: ['Izzy', 'Isa', 'Isabel'] },
	{ name: 'Tobias', aliases: ['Toby', 'Tobi', 'Tobes'] }
];
const COWORKERS: Person[] = [
	{ name: 'Theodore', aliases: ['Teddy', 'Theo', 'Ted'] },
	{ name: 'Margaret', aliases: ['Peggy', 'Maggie', 'Meg'] },
	{ name: 'Abdulrahman', aliases: ['Abdul', 'Abood', 'Rahman'] },
	{ name: 'Gwendolyn', aliases: ['Gwen', 'Wendy', 'Gwenny'] },
	{ name: 'Percival', aliases: ['Percy', 'Perce', 'Val'] }
];
const PETS = ['Miso', 'Pretzel', 'Noodle', 'Biscuit', 'Tofu', 'Waffles', 'Pickle', 'Bean'];
const CITIES = ['Leeds', 'Bristol', 'Glasgow', 'Manchester', 'Cardiff', 'Brighton', 'Sheffield', 'Nottingham'];
const HANDLES = ['xoxo_{a}', '{a}.jpg', 'not{a}', '{a}_irl', 'the_real_{a}', 'tiredgoblin', 'sunflowerseed', 'midnightsnack'];

/** A new cast: names drawn apart from each other, the member's display name now and then a handle. */
export function drawCast(random: Random, number: number): ChatCast {
	const member = MEMBERS[(number - 1) % MEMBERS.length]!;
	const friend = random.pick(FRIENDS);
	const sister = random.pick(SISTERS.filter((person) => !sharesAName(person, member) && !sharesAName(person, friend)));
	const partner = random.pick(PARTNERS.filter((person) => !sharesAName(person, sister) && !sharesAName(person, member)));
	const coworker = random.pick(COWORKERS.filter((person) => ![member, friend, sister, partner].some((other) => sharesAName(person, other))));
	const handle = random.pick(HANDLES).replace('{a}', random.pick(member.aliases).toLowerCase());
	return {
		member,
		memberDisplayName: random.chance(0.5) ? handle : member.name,
		friend,
		friendDisplayName: friend.name,
		sister,
		partner,
		coworker,
		pet: random.pick(PETS),
		city: random.pick(CITIES)
	};
}

/** Any of a person's names. */
export function anyName(random: Random, person: Person): string {
	return random.pick([person.name, ...person.aliases]);
}

/** A name other than the one the chat mostly uses. */
export function alias(random: Random, person: Person): string {
	return random.pick(person.aliases);
}

function sharesAName(a: Person, b: Person): boolean {
	const names = new Set([a.name, ...a.aliases]);
	return [b.name, ...b.aliases].some((name) => names.has(name));
}
