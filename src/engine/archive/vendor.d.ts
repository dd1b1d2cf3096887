// Type declarations for dependencies that ship none.
declare module 'wink-porter2-stemmer' {
	/** Porter2 (English) stem of one lower-case word. */
	export default function stem(word: string): string;
}

declare module 'stopword' {
	/** English stop words, lower case. */
	export const eng: readonly string[];
}
