import type { Fact } from './facts';
import { MONTHS, persona, user } from './say';

const hobby: Fact = (r, c) => {
	const [hobby, place, synonym] = r.pick([
		['pottery', 'Clayworks studio', 'ceramics'],
		['life drawing', 'the Annex gallery', 'sketching'],
		['salsa', 'Casa Ritmo', 'dance'],
		['bouldering', 'Crux Climbing', 'climbing'],
		['woodworking', 'the Makers Shed', 'carpentry']
	] as const);
	const teacher = r.pick(['Ingrid', 'Mateo', 'Bea', 'Kofi', 'Saoirse']);
	return {
		episodes: [
			[user(`signed up for a ${hobby} class at ${place}! tuesday evenings, 8 weeks`, 'a'), persona('Love that. First time trying it?')],
			[
				user(`${teacher} (the instructor) said my piece was the best in the group tonight 🥹`, 'b'),
				persona(`${teacher} has good taste! What did you make?`)
			]
		],
		questions: [{ kind: 'multi-hop', question: `Who teaches the ${synonym} course ${c.user} joined, and where is it held?`, keys: ['a', 'b'] }],
		mentions: [hobby]
	};
};

const race: Fact = (r, c) => {
	const race = r.pick(['riverside half marathon', 'city 10k', 'harbour trail run', 'spring duathlon']);
	const day = r.int(2, 28);
	const month = r.pick(MONTHS);
	const hoped = r.int(50, 130);
	return {
		episodes: [
			[
				user(`entered the ${race}. it's on ${month} ${day}, secretly hoping for under ${hoped} minutes`, 'a'),
				persona('Brave! How are you training for it?')
			],
			[
				user(`i did it!!! crossed the line in ${hoped + r.int(-6, 9)} minutes, legs are jelly`, 'b'),
				persona('YOU DID IT! Celebrate properly tonight.')
			]
		],
		questions: [
			{ kind: 'temporal', question: `What date was the ${race.split(' ').slice(-2).join(' ')} scheduled for?`, keys: ['a'] },
			{ kind: 'single-hop', question: `How long did it take ${c.user} to complete the race?`, keys: ['b'] }
		],
		mentions: ['run', 'legs']
	};
};

const book: Fact = (r, c) => {
	const title = r.pick(['The Glass Orchard', 'Salt and Cinder', 'A Winter Ledger', 'The Quiet Engine', 'Northern Lanterns']);
	const opinion = r.pick([
		'the ending made me so angry, the twist felt cheap',
		'gorgeous writing but nothing happens for 200 pages',
		'cried on the bus, the letters chapter destroyed me',
		'way funnier than i expected, the grandma steals every scene'
	]);
	return {
		episodes: [[user(`finished ${title} last night. ${opinion}`, 'a'), persona(`Ha, I can see why. Would you read more by the same author?`)]],
		questions: [{ kind: 'open', question: `What was ${c.user}'s reaction to ${title}?`, keys: ['a'] }],
		mentions: ['book', 'reading']
	};
};

const allergy: Fact = (r, c) => {
	const [allergen, food] = r.pick([
		['tree nuts', 'my almond croissants'],
		['shellfish', 'prawn tacos'],
		['gluten', 'fresh bread'],
		['lactose', 'ice cream']
	] as const);
	return {
		episodes: [
			[
				user(`allergy test results are in. ${allergen}. so goodbye ${food} i guess 😭`, 'a'),
				persona('Oh no. At least you know now and can feel better.')
			]
		],
		questions: [{ kind: 'single-hop', question: `What did the medical tests say ${c.user} has to avoid eating?`, keys: ['a'] }],
		mentions: ['doctor', 'food']
	};
};

const language: Fact = (r, c) => {
	const language = r.pick(['Portuguese', 'Japanese', 'Korean', 'Italian', 'Dutch']);
	const tutor = r.pick(['Renata', 'Hiro', 'Min-ji', 'Luca', 'Sanne']);
	return {
		episodes: [
			[user(`started ${language} on duolingo, ${r.int(5, 40)} day streak so far`, 'a'), persona('Nice streak! Why that language?')],
			[
				user(`booked a real tutor for ${language}, ${tutor}. first lesson was humbling, i understood nothing`, 'b'),
				persona('Everyone starts there. It gets better fast.')
			]
		],
		questions: [{ kind: 'open', question: `How has ${c.user}'s ${language} learning been going?`, keys: ['a', 'b'] }],
		mentions: [language]
	};
};

const injury: Fact = (r, c) => {
	const [part, sport] = r.pick([
		['ankle', 'five-a-side'],
		['wrist', 'climbing'],
		['knee', 'netball'],
		['shoulder', 'volleyball']
	] as const);
	const weeks = r.int(2, 8);
	return {
		episodes: [
			[user(`twisted my ${part} at ${sport} this morning. physio says ${weeks} weeks off`, 'a'), persona('Ouch! Rest up and keep it elevated.')]
		],
		questions: [
			{ kind: 'single-hop', question: `How long was ${c.user} told to stay out of sport after getting hurt?`, keys: ['a'] },
			{ kind: 'temporal', question: `When did ${c.user} injure their ${part}?`, keys: ['a'] }
		],
		mentions: [part, 'physio']
	};
};

const restaurant: Fact = (r, c) => {
	const [cuisine, kind] = r.pick([
		['ramen', 'noodle'],
		['georgian', 'khachapuri'],
		['ethiopian', 'injera'],
		['sichuan', 'spicy']
	] as const);
	const name = r.pick(['Little Lantern', 'Mama Tsira', 'Blue Door', 'Ember & Salt']);
	return {
		episodes: [
			[
				user(`new favourite place: ${name}, does ${cuisine}. the ${kind} stuff blew my mind`, 'a'),
				persona('Adding it to my imaginary list. What did you order?')
			]
		],
		questions: [{ kind: 'single-hop', question: `What is the name of the eatery ${c.user} raved about recently?`, keys: ['a'] }],
		mentions: ['dinner', 'food']
	};
};

const recommendation: Fact = (r, c) => {
	const show = r.pick(['Slow Horses', 'The Bear', 'Severance', 'Blue Eye Samurai', 'Taskmaster']);
	const verdict = r.pick(['binged all of it in two nights', 'gave up after episode two, not for me']);
	return {
		episodes: [
			[user('need something new to watch, any ideas?'), { who: 'persona', text: `Try ${show}! I think it's right up your street.`, key: 'a' }],
			[user(`so ${show}... ${verdict}`, 'b'), persona('Ha, thanks for reporting back!')]
		],
		questions: [{ kind: 'multi-hop', question: `Which series did ${c.persona} suggest, and did ${c.user} like it?`, keys: ['a', 'b'] }],
		mentions: ['watch', 'show']
	};
};

const concert: Fact = (r, c) => {
	const band = r.pick(['Wet Leg', 'Fontaines D.C.', 'Khruangbin', 'Caribou', 'Big Thief']);
	const venue = r.pick(['the Roundhouse', 'Barrowland', 'the Academy', 'Victoria Warehouse']);
	const day = r.int(1, 28);
	const month = r.pick(MONTHS);
	return {
		episodes: [
			[
				user(`got tickets!! ${band} at ${venue} on ${month} ${day}`, 'a'),
				persona('Yesss! Who are you going with?'),
				user(`${c.friend} obviously`)
			]
		],
		questions: [
			{ kind: 'temporal', question: `When is ${c.user} seeing ${band} live?`, keys: ['a'] },
			{ kind: 'single-hop', question: `At which venue is the gig ${c.user} bought tickets for?`, keys: ['a'] }
		],
		mentions: ['tickets', 'music']
	};
};

const cooking: Fact = (r, c) => {
	const dish = r.pick(['beef wellington', 'homemade gyoza', 'a lemon meringue pie', 'paella']);
	const outcome = r.pick([
		'burned the bottom completely',
		'came out weirdly perfect on the first go',
		'the smoke alarm went off twice but it tasted fine'
	]);
	return {
		episodes: [[user(`attempted ${dish} tonight. ${outcome}`, 'a'), persona('Ha! Would you make it again?')]],
		questions: [{ kind: 'open', question: `How did ${c.user}'s first go at ${dish} turn out?`, keys: ['a'] }],
		mentions: ['dinner', 'cooking']
	};
};

/** Facts of pastimes, health and tastes. */
export const pastimeFacts: readonly Fact[] = [hobby, race, book, allergy, language, injury, restaurant, recommendation, concert, cooking];
