export * from './FakeDiscord';
export type * from './actions';
export type { CommandOptionsInput, ExplicitOption, OptionValue } from './commandOptions';
export type { InteractionActor } from './interactionPayloads';
export type { HistoryQuery } from './messages';
export type { RequestPredicate } from './recorder';
export { SnowflakeGenerator } from './snowflakes';
export type { FakeState, GuildRecord, MemberRecord } from './state';
export type * from './types';
