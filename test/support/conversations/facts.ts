import { lifeFacts } from './lifeFacts';
import { pastimeFacts } from './pastimeFacts';
import type { Random } from './random';

/** The people and things one conversation keeps coming back to. */
export interface Cast {
	user: string;
	persona: string;
	partner: string;
	pet: string;
	petKind: string;
	sibling: string;
	/** `sister` or `brother`. */
	siblingRole: string;
	friend: string;
}

export type QuestionKind = 'single-hop' | 'multi-hop' | 'temporal' | 'open';

/** One line of an episode; `key` marks a line a question names as its evidence. */
export interface Line {
	who: 'user' | 'persona';
	text: string;
	key?: string;
}

/**
 * A fact told over one or more episodes (each a few lines said together, each in a later session than the one
 * before), and the questions it answers. Questions paraphrase: they name the topic, rarely the words said.
 */
export interface FactPlan {
	episodes: Line[][];
	questions: { kind: QuestionKind; question: string; keys: string[] }[];
	/** Words the small talk may drop elsewhere, so the fact's names alone do not find its evidence. */
	mentions: string[];
}

export type Fact = (random: Random, cast: Cast) => FactPlan;

/** Every kind of fact a conversation draws from. */
export const FACTS: readonly Fact[] = [...lifeFacts, ...pastimeFacts];
