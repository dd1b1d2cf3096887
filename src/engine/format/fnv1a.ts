/** FNV-1a, 32 bits (signed): a quick hash that is the same in every process and version, unlike a language's own. */
export function fnv1a(text: string): number {
	let hash = 0x811c9dc5;
	for (let at = 0; at < text.length; at++) hash = Math.imul(hash ^ text.charCodeAt(at), 0x01000193);
	return hash;
}
