import confusables from 'unhomoglyph/data.json';

/**
 * Unicode's confusables (UTS #39, `confusables.txt` 13.0.0, 6,311 characters, as the `unhomoglyph` package carries them):
 * each character that is drawn like another, mapped to the one it passes for (`Ꮪ` and `ꓢ` to `S`, `ᐸ` to `<`).
 */
const PROTOTYPES: ReadonlyMap<string, string> = new Map(Object.entries(confusables as Record<string, string>));

/** Characters drawn as nothing: they are no part of how a text reads. */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

/**
 * The confusable skeleton of `text` (UTS #39, section 4): decomposed, without default-ignorable characters, each
 * character replaced by the one it passes for, decomposed again. Two texts with one skeleton are drawn alike.
 * @example
 * skeleton('Ꮪօl') === skeleton('Sol'); // true
 */
export function skeleton(text: string): string {
	let mapped = '';
	for (const char of text.normalize('NFD').replace(IGNORABLE, '')) mapped += PROTOTYPES.get(char) ?? char;
	return mapped.normalize('NFD');
}
