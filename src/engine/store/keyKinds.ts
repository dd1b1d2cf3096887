import { Keys, parseScopeKey } from './keys';

/** The kinds of key the engine writes (see {@link Keys}), as the operator CLI counts them. */
export const KEY_KINDS = {
	shortTermUser: 'short-term entries, user scope',
	shortTermServer: 'short-term entries, server scope',
	archiveHeads: 'archives (heads)',
	archiveChunks: 'archive chunks',
	archiveMarkers: 'archived-message markers',
	archiveAuthorChunks: 'archive chunks by author (sets of chunk numbers)',
	archiveTombstones: 'archive tombstone lists',
	userIndexes: 'user indexes',
	serverIndexes: 'server indexes',
	channelIndexes: 'channel indexes',
	authorIndexes: 'author indexes',
	channelArchiveIndexes: 'channel archive indexes',
	forgottenMessages: 'deleted-message lists (the layout before records)',
	forgottenMessage: 'deleted messages',
	forgottenIds: 'deleted-message ids by channel (sets)',
	leftMembers: 'lists of members who left a server',
	serverPurges: 'pending server purges',
	profiles: 'profiles',
	topics: 'topic-note sets',
	contextSources: 'context sources (message ids a reply drew on)',
	userSettings: 'user settings',
	serverSettings: 'server settings',
	registries: 'registries (sets of ids)',
	registryBuckets: 'registry buckets (the layout before sets, moved at start)',
	sweepLease: 'sweep lease',
	encryptionCheck: 'encryption check',
	other: 'other keys'
} as const;

/** A kind of key in the store, as `inventory()` counts them. */
export type KeyKind = keyof typeof KEY_KINDS;

const PREFIXES: [string, KeyKind][] = [
	['index:user:', 'userIndexes'],
	['index:server:', 'serverIndexes'],
	['index:channel:', 'channelIndexes'],
	['index:author:', 'authorIndexes'],
	['archives:', 'channelArchiveIndexes'],
	['forgotten-ids:', 'forgottenIds'],
	['forgotten:', 'forgottenMessages'],
	['gone:', 'forgottenMessage'],
	['left:', 'leftMembers'],
	['purge:server:', 'serverPurges'],
	['ltm:profile:', 'profiles'],
	['ltm:topics:', 'topics'],
	['sources:', 'contextSources'],
	['settings:user:', 'userSettings'],
	['settings:server:', 'serverSettings']
];

/** Which kind of key `key` (without the namespace) is. */
export function keyKind(key: string): KeyKind {
	if (key.startsWith('seen:')) return 'archiveMarkers';
	if (key.startsWith('archive:')) {
		// Ids never hold ":", so the scope key inside cannot hold these parts.
		if (key.includes(':seen:')) return 'archiveMarkers'; // untagged (see Keys.archiveMarkerUntagged)
		if (/:by:[^:]+$/.test(key)) return 'archiveAuthorChunks';
		if (/:chunk:\d+$/.test(key)) return 'archiveChunks';
		if (key.endsWith(':head')) return 'archiveHeads';
		if (key.endsWith(':tombstones')) return 'archiveTombstones';
		return 'other';
	}
	const scope = parseScopeKey(key);
	if (scope) return scope.scope === 'user' ? 'shortTermUser' : 'shortTermServer';
	for (const [prefix, kind] of PREFIXES) if (key.startsWith(prefix)) return kind;
	if (key.startsWith('registry:')) return /^registry:\w+:\d+$/.test(key) ? 'registryBuckets' : 'registries';
	if (key === Keys.sealCheck()) return 'encryptionCheck';
	return key === Keys.sweepLease() ? 'sweepLease' : 'other';
}
