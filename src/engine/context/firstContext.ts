import { ScopeIndex } from '../archive/ScopeIndex';
import { PersonaNames } from '../format/speakers';
import { tokenCount } from '../format/tokens';
import type { StoredMessage } from '../schemas';
import { informationOf } from '../summaries/digest/information';
import { nudgeLine } from '../format/pluginLines';
import { recentBlock } from './recentTier';
import { relevantBlock } from './relevantTier';

/** A few messages of the kinds a context shows: words, figures, a date, a link, emoji, CJK, a persona's reply. */
const SAMPLE: StoredMessage[] = [
	{
		id: '1',
		role: 'user',
		authorId: '10',
		authorName: 'Maya',
		text: 'We decided: the launch is on 14 March at 10:00 in Porto, 4,200 euros 👍',
		ts: 0
	},
	{
		id: '2',
		role: 'persona',
		personaId: 'sol',
		authorName: 'Sol',
		text: 'Noted! See https://example.com/table?id=42 for the booking.',
		ts: 60_000
	},
	{ id: '3', role: 'user', authorId: '11', authorName: 'Theo', text: '東京で会いましょう! I’ll book it tomorrow, ok?', ts: 120_000 }
];

let prepared = false;

/**
 * Runs, as the first engine of a process opens, the code the first context after a restart would otherwise be the first to run, on a few
 * sample messages: the tokenizer builds its tables at first use (some 5 ms), and V8 compiles each regular expression (o200k's
 * split, the stemmer's, the digest's) and function at its first use. In a new process the first context held the
 * event loop for 20 to 28 ms, most of it that.
 */
export function prepareFirstContext(): void {
	// V8 compiles once per process: an engine opened after another finds it done (a run took 0.5 to 0.8 ms each time).
	if (prepared) return;
	prepared = true;
	const personas = PersonaNames.of(SAMPLE);
	const index = new ScopeIndex();
	index.add(SAMPLE);
	relevantBlock(index, index.rank('launch in Porto', 10), () => true, 500, personas);
	recentBlock(SAMPLE, 500, personas);
	tokenCount(nudgeLine(12));
	informationOf({ kind: 'event', text: `Maya: ${SAMPLE[0]!.text}` });
}
