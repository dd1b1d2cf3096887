import { OverwriteType, PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import type { ApiObject } from './types';

/** Who is asking: the guild (whose id is the @everyone role's), the member's roles and the member's user id. */
export interface PermissionSubject {
	guildId: string;
	userId: string;
	roleIds: readonly string[];
}

/**
 * A member's permissions in a channel, as Discord computes them for `member.permissions` and
 * `app_permissions` in interactions: roles first, then the channel's overwrites
 * (@everyone, then roles together, then the member). Administrator means every permission.
 */
export function computePermissions(rolePermissions: readonly bigint[], overwrites: readonly ApiObject[], subject: PermissionSubject): bigint {
	const base = rolePermissions.reduce((all, bits) => all | bits, 0n);
	if ((base & PermissionFlagsBits.Administrator) !== 0n) return PermissionsBitField.All;

	let permissions = base;
	const everyone = overwrites.find((overwrite) => overwrite.id === subject.guildId);
	if (everyone) permissions = applyOverwrite(permissions, everyone);

	let roleAllow = 0n;
	let roleDeny = 0n;
	for (const overwrite of overwrites) {
		if (overwrite.type !== OverwriteType.Role || overwrite.id === subject.guildId || !subject.roleIds.includes(String(overwrite.id))) continue;
		roleAllow |= BigInt(String(overwrite.allow ?? 0));
		roleDeny |= BigInt(String(overwrite.deny ?? 0));
	}
	permissions = (permissions & ~roleDeny) | roleAllow;

	const own = overwrites.find((overwrite) => overwrite.type === OverwriteType.Member && overwrite.id === subject.userId);
	return own ? applyOverwrite(permissions, own) : permissions;
}

function applyOverwrite(permissions: bigint, overwrite: ApiObject): bigint {
	return (permissions & ~BigInt(String(overwrite.deny ?? 0))) | BigInt(String(overwrite.allow ?? 0));
}
