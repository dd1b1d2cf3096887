import type { Fact } from './facts';
import { MONTHS, persona, user } from './say';

const pet: Fact = (r, c) => {
	const shelter = r.pick(['Happy Paws rescue', 'the Eastside shelter', 'Second Chance Animal Rescue', 'a foster in Millbrook']);
	const breed =
		c.petKind === 'dog'
			? r.pick(['beagle mix', 'greyhound', 'border collie', 'staffy cross'])
			: r.pick(['tabby', 'maine coon', 'tuxedo cat', 'ginger shorthair']);
	const kilos = r.int(4, 31);
	return {
		episodes: [
			[
				user(`ok big news. we brought ${c.pet} home yesterday!! a ${breed} from ${shelter}`, 'a'),
				persona(`Oh my gosh, congratulations! How's ${c.pet} settling in?`),
				user('hiding under the sofa mostly lol')
			],
			[
				user(`vet visit today. she says ${c.pet} is ${kilos} kilos and needs to slim down a bit`, 'b'),
				persona(`Ha, a diet plan for ${c.pet}. Fewer treats then!`)
			]
		],
		questions: [
			{ kind: 'single-hop', question: `What breed is the animal ${c.user} adopted, and which rescue did it come from?`, keys: ['a'] },
			{ kind: 'temporal', question: `When did ${c.user}'s new ${c.petKind} join the household?`, keys: ['a'] },
			{ kind: 'single-hop', question: `How heavy was ${c.pet} at the checkup?`, keys: ['b'] }
		],
		mentions: [c.pet]
	};
};

const job: Fact = (r, c) => {
	const [oldCompany = '', newCompany = ''] = r.sample(
		['Northwind Logistics', 'Bramble & Co', 'Halcyon Health', 'Vektor Games', 'Pinecrest Bank', 'Orbital Foods'],
		2
	);
	const role = r.pick(['data analyst', 'product designer', 'support lead', 'backend developer', 'account manager']);
	const salary = r.int(48, 95);
	return {
		episodes: [
			[
				user(`work was brutal again. ${r.int(3, 7)} years as a ${role} at ${oldCompany} and it never gets calmer`, 'a'),
				persona('That sounds exhausting. Is it the workload or the people?')
			],
			[
				user(`guess who got an offer from ${newCompany}!! ${salary}k, fully remote`, 'b'),
				persona(`That's huge! Are you going to take it?`),
				user('leaning yes. telling my manager friday')
			],
			[user(`last day at ${oldCompany} today. weird feeling, cleared out my desk`, 'c'), persona('End of an era! Proud of you.')]
		],
		questions: [
			{ kind: 'multi-hop', question: `Which employer did ${c.user} leave, and who hired them next?`, keys: ['a', 'c'] },
			{ kind: 'single-hop', question: `What salary came with ${c.user}'s new job offer?`, keys: ['b'] },
			{ kind: 'temporal', question: `When did ${c.user} finish working at the old company?`, keys: ['c'] }
		],
		mentions: [oldCompany, newCompany]
	};
};

const trip: Fact = (r, c) => {
	const [first = '', second = ''] = r.sample(['Lisbon', 'Kyoto', 'Reykjavik', 'Hanoi', 'Marrakech', 'Copenhagen', 'Oaxaca', 'Tbilisi'], 2);
	const month = r.pick(MONTHS);
	return {
		episodes: [
			[
				user(`${c.partner} and i are thinking ${first} for a week in ${month}`, 'a'),
				persona(`${first} sounds amazing. What's drawing you there?`),
				user('food mostly tbh')
			],
			[
				user(`change of plans!! ${first} flights doubled so we booked ${second} instead`, 'b'),
				persona(`Ooh, ${second}! Honestly might be even better.`)
			]
		],
		questions: [
			{ kind: 'single-hop', question: `Where are ${c.user} and ${c.partner} going on holiday in the end?`, keys: ['b'] },
			{
				kind: 'multi-hop',
				question: `Which destination did ${c.user} first have in mind for the ${month} getaway, and why did it change?`,
				keys: ['a', 'b']
			}
		],
		mentions: [first, second, 'trip']
	};
};

const sibling: Fact = (r, c) => {
	const city = r.pick(['Glasgow', 'Melbourne', 'Toronto', 'Rotterdam', 'Austin', 'Wellington']);
	const reason = r.pick(['a nursing job', 'grad school', 'her partner', 'a startup gig', 'a teaching post']);
	return {
		episodes: [
			[
				user(`${c.sibling} told us at dinner that she's relocating to ${city} for ${reason}`, 'a'),
				persona('Wow, big move! How did everyone take it?'),
				user('mum cried a bit ngl')
			]
		],
		questions: [{ kind: 'single-hop', question: `Which city is ${c.user}'s ${c.siblingRole} moving to, and what for?`, keys: ['a'] }],
		mentions: [c.sibling]
	};
};

const car: Fact = (r, c) => {
	const part = r.pick(['gearbox', 'head gasket', 'clutch', 'alternator']);
	const cost = r.int(9, 30) * 100;
	const replacement = r.pick(['an e-bike', 'a secondhand Yaris', 'a cargo bike', 'a little scooter']);
	return {
		episodes: [
			[
				user(`car died on the motorway. garage says the ${part} is gone, ${cost} quid to fix`, 'a'),
				persona('Ugh, that is the worst. Is it even worth repairing?')
			],
			[user(`sold the old car for scrap and got ${replacement} instead. no regrets`, 'b'), persona('Honestly a great call.')]
		],
		questions: [{ kind: 'multi-hop', question: `What broke on ${c.user}'s vehicle, and what did they get to replace it?`, keys: ['a', 'b'] }],
		mentions: ['car']
	};
};

const flat: Fact = (r, c) => {
	const area = r.pick(['Ashgrove', 'the Old Docks', 'Kingsmead', 'Larkhill', 'Fenwick Park']);
	const rent = r.int(9, 19) * 100;
	const day = r.int(1, 28);
	const month = r.pick(MONTHS);
	return {
		episodes: [
			[user(`WE GOT THE FLAT. the one in ${area} with the tiny balcony. ${rent} a month`, 'a'), persona('Congratulations!! The balcony one!')],
			[user(`moving day is locked in: ${month} ${day}. boxes everywhere`, 'b'), persona('Moving is chaos but so worth it. Need a playlist?')],
			[user(`landlord emailed, rent goes up to ${rent + r.int(1, 3) * 50} from next year. cool cool cool`, 'c'), persona('Oof. That stings.')]
		],
		questions: [
			{ kind: 'single-hop', question: `Which neighbourhood is ${c.user}'s new apartment in?`, keys: ['a'] },
			{ kind: 'temporal', question: `When was ${c.user} due to move house?`, keys: ['b'] },
			{ kind: 'multi-hop', question: `How much did ${c.user} pay for the place at first, and what is it rising to?`, keys: ['a', 'c'] }
		],
		mentions: ['flat', 'landlord']
	};
};

const gift: Fact = (r, c) => {
	const [planned = '', given = ''] = r.sample(
		['a record player', 'a pasta maker', 'concert tickets', 'a weekend in a cabin', 'a fancy fountain pen', 'a telescope'],
		2
	);
	const day = r.int(1, 28);
	const month = r.pick(MONTHS);
	return {
		episodes: [
			[
				user(`${c.partner}'s birthday is ${month} ${day}. thinking ${planned}?`, 'a'),
				persona(`${planned} is a lovely idea. Does ${c.partner} hint at it?`)
			],
			[user(`ended up getting ${c.partner} ${given} and it was a HIT`, 'b'), persona('Yay! Nothing beats a present that lands.')]
		],
		questions: [
			{ kind: 'temporal', question: `On what day does ${c.partner} celebrate turning a year older?`, keys: ['a'] },
			{ kind: 'single-hop', question: `What present did ${c.partner} actually receive from ${c.user}?`, keys: ['b'] }
		],
		mentions: [c.partner, 'birthday']
	};
};

const wedding: Fact = (r, c) => {
	const place = r.pick(['a barn in Somerset', 'a vineyard near Porto', 'a castle in Fife', 'a lake house up north']);
	const role = r.pick(['best man', 'maid of honour', 'officiant', 'the photographer']);
	const day = r.int(1, 28);
	const month = r.pick(MONTHS);
	return {
		episodes: [
			[user(`${c.friend} asked me to be ${role} at the wedding!! ${place}, ${month} ${day}`, 'a'), persona(`What an honour! You'll be great.`)]
		],
		questions: [
			{ kind: 'single-hop', question: `What part is ${c.user} playing in ${c.friend}'s big day, and where is it?`, keys: ['a'] },
			{ kind: 'temporal', question: `When are ${c.friend} and their partner getting married?`, keys: ['a'] }
		],
		mentions: [c.friend]
	};
};

const nephew: Fact = (r, c) => {
	const name = r.pick(['Ollie', 'Zain', 'Finn', 'Arlo', 'Theo']);
	const age = r.int(3, 12);
	return {
		episodes: [
			[
				user(`${name} turned ${age} today! my ${c.siblingRole}'s kid. he wanted a dinosaur cake`, 'a'),
				persona(`Happy birthday to ${name}! Did the cake live up to it?`)
			]
		],
		questions: [
			{ kind: 'temporal', question: `When was ${c.user}'s nephew's birthday?`, keys: ['a'] },
			{ kind: 'single-hop', question: `How old is ${name} now?`, keys: ['a'] }
		],
		mentions: ['cake']
	};
};

const savings: Fact = (r, c) => {
	const goal = r.pick(['a new laptop', 'a deposit on a house', 'a trip to see family', 'a pottery wheel']);
	const [first, later] = [r.int(2, 9) * 100, r.int(10, 40) * 100];
	return {
		episodes: [
			[user(`started putting money aside for ${goal}. ${first} saved so far`, 'a'), persona('Every bit counts. Got a target?')],
			[user(`savings update: ${later} in the pot now. feels real`, 'b'), persona('That is real progress!')]
		],
		questions: [
			{ kind: 'multi-hop', question: `What is ${c.user} saving up for, and how much had they put away by the latest update?`, keys: ['a', 'b'] }
		],
		mentions: ['money']
	};
};

/** Facts of a life: home, work, family, plans that change. */
export const lifeFacts: readonly Fact[] = [pet, job, trip, sibling, car, flat, gift, wedding, nephew, savings];
