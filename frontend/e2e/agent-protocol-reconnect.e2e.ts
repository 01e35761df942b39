/**
 * A dropped Agent Protocol stream, with the real `@langchain/langgraph-sdk` client: the connection of a run's
 * stream breaks off part-way (a fetch that errors the body after some bytes, as a dropped socket does); the
 * SDK reconnects by itself to the stream's `Location` with the last frame's id as Last-Event-ID, and the
 * caller receives every event of the run once, in order, in the stream modes it asked for.
 */
import { Client } from '@langchain/langgraph-sdk';
import { afterEach, expect, test } from 'vitest';

import { api, baseUrl, ollamaUrl, QUESTION } from './helpers';
import { LAWS, setModelLatency } from './stack';

afterEach(async () => {
  await setModelLatency(ollamaUrl(), 0);
});

/** Node's fetch, except that the first stream response it returns errors after about ``bytes`` bytes. */
function droppingFetch(bytes: number, requests: string[]): typeof fetch {
  let dropped = false;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requests.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    const response = await fetch(input, init);
    if (dropped || response.body === null || !url.pathname.endsWith('/stream')) return response;
    dropped = true;
    const reader = response.body.getReader();
    let passed = 0;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
        } else if (passed + value.length > bytes) {
          await reader.cancel();
          controller.error(new TypeError('terminated: the connection dropped'));
        } else {
          passed += value.length;
          controller.enqueue(value);
        }
      },
    });
    return new Response(body, { status: response.status, headers: response.headers });
  };
}

interface EventFrame {
  seq: number;
  type: string;
}

test('a stream that drops is reconnected by the SDK from its Location with Last-Event-ID', async () => {
  await setModelLatency(ollamaUrl(), 100); // the run still executes when its stream drops
  const requests: string[] = [];
  const client = new Client({
    apiUrl: `${baseUrl()}api/langgraph`,
    apiKey: null,
    callerOptions: { fetch: droppingFetch(4_000, requests) },
  });
  const threadId = (await client.threads.create()).thread_id;
  const received: { event: string; data: unknown }[] = [];
  for await (const part of client.runs.stream(threadId, 'research', {
    input: { question: QUESTION, collections: [LAWS], mode: 'quick' },
    context: { depth: 0 },
    streamMode: ['updates', 'custom'],
  })) {
    received.push({ event: part.event, data: part.data });
  }

  const runId = (received[0]!.data as { run_id: string }).run_id;
  const base = `/api/langgraph/threads/${threadId}/runs`;
  expect(requests).toEqual(expect.arrayContaining([`POST ${base}/stream`, `GET ${base}/${runId}/stream`]));
  expect(received.at(-1)!.event).toBe('end');
  expect(new Set(received.map((part) => part.event))).toEqual(new Set(['metadata', 'custom', 'updates', 'end']));
  const events = received.filter((part) => part.event === 'custom').map((part) => part.data as EventFrame);
  const detail = await api<{ run: { status: string }; last_event: number }>(`api/runs/${threadId}`);
  expect(detail.run.status).toBe('done');
  expect(events.map((event) => event.seq)).toEqual(Array.from({ length: detail.last_event }, (_, i) => i + 1));
  expect(events.at(-1)!.type).toBe('done');
});
