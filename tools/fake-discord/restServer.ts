import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AttachmentStore } from './attachments';
import { readBody } from './body';
import type { RequestRecorder } from './recorder';
import type { RouteRequest, RouteResponse, Router } from './router';

const API_PREFIX = /^\/api(?:\/v\d+)?(?=\/)/;
const ATTACHMENT_PATH = /^\/attachments\/(\d+)\//;

/**
 * The HTTP side of the fake Discord: REST under `/api/v10`, uploaded files under `/attachments`.
 * Every REST request is recorded with its answer; one no route knows is answered
 * 404 `{ message, code: 0 }` so that a test sees what the fake lacks.
 */
export function createRequestHandler(router: Router, recorder: RequestRecorder, attachments: AttachmentStore) {
	return async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
		const url = new URL(request.url ?? '/', 'http://fake');
		const attachment = ATTACHMENT_PATH.exec(url.pathname);
		if (attachment && request.method === 'GET') {
			const file = attachments.file(attachment[1]!);
			response.writeHead(file ? 200 : 404, { 'content-type': file?.contentType || 'application/octet-stream' }).end(file?.data);
			return;
		}

		// When the request arrived, as Discord times an interaction's callback: before its body is read.
		const at = Date.now();
		const method = request.method ?? 'GET';
		const path = url.pathname.replace(API_PREFIX, '').split('/').map(decodeURIComponent).join('/');
		const query = Object.fromEntries(url.searchParams);
		const { json: body, files } = await readBody(request);
		const answer = await answerFor(router, method, path, { query, body, files });
		recorder.add({ method, path, query, body, files, status: answer.status, response: answer.body, at });
		if (answer.body === undefined) {
			response.writeHead(answer.status).end();
			return;
		}
		response.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
	};
}

async function answerFor(router: Router, method: string, path: string, request: Omit<RouteRequest, 'params'>): Promise<RouteResponse> {
	const route = router.match(method, path);
	if (!route) return { status: 404, body: { message: `404: Not Found (the fake Discord has no route for ${method} ${path})`, code: 0 } };
	try {
		return await route.handler({ ...request, params: route.params });
	} catch (error) {
		// A bug in the fake must fail the test loudly, not hang it on @discordjs/rest retries.
		return { status: 400, body: { message: `fake Discord route failed: ${(error as Error).stack ?? String(error)}`, code: 0 } };
	}
}
