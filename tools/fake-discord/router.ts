import type { RecordedFile } from './types';

/** What a route handler gets: the path parameters, query and parsed body. */
export interface RouteRequest {
	params: Record<string, string>;
	query: Record<string, string>;
	body: unknown;
	files: RecordedFile[];
}

/** What a route handler answers; no body means 204 No Content. */
export interface RouteResponse {
	status: number;
	body?: unknown;
}

export type RouteHandler = (request: RouteRequest) => RouteResponse | Promise<RouteResponse>;

interface Route {
	method: string;
	segments: string[];
	handler: RouteHandler;
}

/** Matches `METHOD /path/:param` patterns against decoded REST paths. */
export class Router {
	readonly #routes: Route[] = [];

	public on(method: string, pattern: string, handler: RouteHandler): this {
		this.#routes.push({ method, segments: pattern.split('/').filter(Boolean), handler });
		return this;
	}

	/** The handler and parameters for a request, or undefined when no route matches. */
	public match(method: string, path: string): { handler: RouteHandler; params: Record<string, string> } | undefined {
		const parts = path.split('/').filter(Boolean);
		for (const route of this.#routes) {
			if (route.method !== method || route.segments.length !== parts.length) continue;
			const params: Record<string, string> = {};
			const matches = route.segments.every((segment, index) => {
				if (segment.startsWith(':')) {
					params[segment.slice(1)] = parts[index]!;
					return true;
				}
				return segment === parts[index];
			});
			if (matches) return { handler: route.handler, params };
		}
		return undefined;
	}
}

/** A JSON answer. */
export function json(body: unknown, status = 200): RouteResponse {
	return { status, body };
}

/** 204 No Content. */
export function noContent(): RouteResponse {
	return { status: 204 };
}

/** A Discord error answer, e.g. `discordError(404, 10003, 'Unknown Channel')`. */
export function discordError(status: number, code: number, message: string): RouteResponse {
	return { status, body: { message, code } };
}
