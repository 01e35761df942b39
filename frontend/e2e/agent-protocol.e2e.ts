/**
 * LangGraph's Agent Protocol at /api/langgraph, driven from Node by the real `@langchain/langgraph-sdk` client
 * against the e2e stack (the real server, the fake Ollama): an interactive research run from an empty thread
 * through the clarification and plan interrupts (answered with `command: {resume: ...}`) to its report, a
 * second client joining the running stream with Last-Event-ID (and replaying it with "-1", as `useStream`
 * does), a stream mode the subset does not serve refused with a message naming it, and a cancelled run.
 */
import { Client } from '@langchain/langgraph-sdk';
import { afterEach, expect, test } from 'vitest';

import { api, baseUrl, ollamaUrl, QUESTION } from './helpers';
import { LAWS, setModelLatency } from './stack';

const MODES = ['values', 'updates', 'custom'] as const;
const INPUT = { question: QUESTION, collections: [LAWS] };
/** The run's settings (the assistant's context): two clarification rounds at most, so the answer to the
 * first leads to the plan. */
const CONTEXT = { depth: 0, max_clarify_rounds: 2 };

interface Frame {
  event: string;
  data: unknown;
  id: string | undefined;
}

interface InterruptItem {
  value: { kind: string; questions?: string[]; tasks?: { id: string; title: string }[] };
  id: string;
}

afterEach(async () => {
  await setModelLatency(ollamaUrl(), 0);
});

function client(): Client {
  return new Client({ apiUrl: `${baseUrl()}api/langgraph`, apiKey: null });
}

/** A stream part as the SDK yields it at run time (its types leave out the frame's `id`, which it sets). */
interface Part {
  event: string;
  data: unknown;
  id?: string;
}

function frameOf(part: Part): Frame {
  return { event: part.event, data: part.data, id: part.id };
}

async function collect(parts: AsyncIterable<Part>): Promise<Frame[]> {
  const frames: Frame[] = [];
  for await (const part of parts) frames.push(frameOf(part));
  return frames;
}

function record(data: unknown): Record<string, unknown> {
  expect(typeof data === 'object' && data !== null && !Array.isArray(data), JSON.stringify(data)).toBe(true);
  return data as Record<string, unknown>;
}

/** The interrupts of the run's one `updates` frame that carries `__interrupt__`. */
function interruptsOf(frames: Frame[]): InterruptItem['value'][] {
  const found = frames
    .filter((frame) => frame.event === 'updates' && '__interrupt__' in record(frame.data))
    .map((frame) => record(frame.data).__interrupt__ as InterruptItem[]);
  expect(found, JSON.stringify(frames.map((f) => f.event))).toHaveLength(1);
  return found[0]!.map((item) => item.value);
}

function customTypes(frames: Frame[]): unknown[] {
  return frames.filter((f) => f.event === 'custom').map((f) => record(f.data).type);
}

function numbered(frames: Frame[]): number[] {
  return frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
}

test('an interactive run from an empty thread to its report, joined by a second client', async () => {
  const lg = client();
  const assistants = await lg.assistants.search();
  expect(assistants.map((a) => a.graph_id).sort()).toEqual(['report', 'research']);
  const research = await lg.assistants.get('research');

  const thread = await lg.threads.create({ metadata: { topic: 'Gebühren' } });
  expect(thread.status).toBe('idle');
  const threadId = thread.thread_id;

  let created: { run_id: string; thread_id?: string } | undefined;
  const asked = await collect(
    lg.runs.stream(threadId, 'research', {
      input: INPUT,
      context: CONTEXT,
      streamMode: [...MODES],
      onRunCreated: (meta) => (created = meta),
    }),
  );
  expect(asked[0]!.event).toBe('metadata');
  expect(record(asked[0]!.data)).toEqual({ run_id: created?.run_id, thread_id: threadId });
  expect(asked.at(-1)!.event).toBe('end');
  expect(customTypes(asked)).toEqual(expect.arrayContaining(['status', 'phase', 'interrupt']));
  const [clarification] = interruptsOf(asked);
  expect(clarification!.kind).toBe('clarification');
  expect(clarification!.questions!.length).toBeGreaterThan(0);
  const lastValues = record(asked.filter((f) => f.event === 'values').at(-1)!.data);
  expect((lastValues.__interrupt__ as InterruptItem[])[0]!.value).toEqual(clarification);

  // the thread is the Rabbithole run of the same id, with the context as its settings
  const detail = await api<{ overrides: Record<string, unknown> }>(`api/runs/${threadId}`);
  expect(detail.overrides).toEqual(expect.objectContaining(CONTEXT));

  const waiting = await lg.threads.getState(threadId);
  // useStream reads a thread's pending interrupts from its tasks
  expect(waiting.tasks.flatMap((t) => t.interrupts).map((i) => record(i.value).kind)).toEqual(['clarification']);
  const thread2 = await lg.threads.get(threadId);
  expect(thread2.status).toBe('interrupted');
  expect(Object.values(thread2.interrupts).flat().map((i) => record(i.value).kind)).toEqual(['clarification']);

  const answered = await collect(
    lg.runs.stream(threadId, research.assistant_id, {
      command: { resume: 'Nur die Gebühren für Genehmigungen, keine Auslagen.' },
      streamMode: [...MODES],
    }),
  );
  const [plan] = interruptsOf(answered);
  expect(plan!.kind).toBe('plan');
  expect(Math.min(...numbered(answered))).toBeGreaterThan(Math.max(...numbered(asked)));
  expect(JSON.stringify((await lg.threads.getState(threadId)).values)).toContain('keine Auslagen');

  const first = plan!.tasks![0]!;
  const edited = [{ id: first.id, title: first.title }, { title: 'Gebühren für Ausnahmen' }];
  const joiner = client();
  await setModelLatency(ollamaUrl(), 150); // the research takes a few seconds: the join happens while it runs
  const streamed: Frame[] = [];
  let joined: Frame[] = [];
  let after = 0;
  const parts: AsyncIterable<Part> = lg.runs.stream(threadId, 'research', {
    command: { resume: { tasks: edited } },
    streamMode: [...MODES],
  });
  for await (const part of parts) {
    const frame = frameOf(part);
    streamed.push(frame);
    if (frame.event === 'custom' && joined.length === 0) {
      // a second client joins the running stream after this frame
      const runId = String(record(streamed[0]!.data).run_id);
      expect(['pending', 'running']).toContain((await joiner.runs.get(threadId, runId)).status);
      after = Number(frame.id);
      joined = await collect(
        joiner.runs.joinStream(threadId, runId, { streamMode: [...MODES], lastEventId: frame.id }),
      );
    }
  }
  expect(streamed.at(-1)!.event).toBe('end');
  expect(joined.at(-1)!.event).toBe('end');
  expect(joined[0]).toEqual(streamed[0]);
  const later = streamed.slice(1).filter((f) => f.id === undefined || Number(f.id) > after);
  expect(joined.slice(1).map((f) => [f.event, f.id])).toEqual(later.map((f) => [f.event, f.id]));
  // a values frame is the thread's state when it is sent (the two clients read it at different moments)
  expect(joined.slice(1).filter((f) => f.event !== 'values')).toEqual(later.filter((f) => f.event !== 'values'));
  const reports = streamed.filter((f) => f.event === 'updates' && 'report' in record(f.data));
  expect(reports).toHaveLength(1);
  const final = record(streamed.filter((f) => f.event === 'values').at(-1)!.data);
  expect(final).not.toHaveProperty('__interrupt__');
  expect(String(record(final.result).report_markdown).length).toBeGreaterThan(0);
  expect((record(final).plan as { title: string }[]).at(-1)!.title).toBe('Gebühren für Ausnahmen');

  // "-1" (what useStream's joinStream sends by default): the whole run again, from its start
  const runs = await lg.runs.list(threadId);
  expect(runs.map((r) => r.status)).toEqual(['success', 'success', 'success']);
  const lastRun = streamed[0]!.data as { run_id: string };
  const replayed = await collect(
    joiner.runs.joinStream(threadId, lastRun.run_id, { streamMode: [...MODES], lastEventId: '-1' }),
  );
  // the same frames; each `values` frame of a replay is the thread's state as it is now (the final one)
  expect(replayed.map((f) => [f.event, f.id])).toEqual(streamed.map((f) => [f.event, f.id]));
  expect(replayed.filter((f) => f.event !== 'values')).toEqual(streamed.filter((f) => f.event !== 'values'));
  expect(replayed.filter((f) => f.event === 'values').at(-1)).toEqual(
    streamed.filter((f) => f.event === 'values').at(-1),
  );

  const done = await lg.threads.get(threadId);
  expect(done.status).toBe('idle');
  expect(done.metadata).toEqual({ topic: 'Gebühren' });
});

test('a stream mode the subset does not serve, and settings that do not fit, are refused naming them', async () => {
  const lg = client();
  const threadId = (await lg.threads.create()).thread_id;
  const modes = collect(lg.runs.stream(threadId, 'research', { input: INPUT, streamMode: ['values', 'messages-tuple'] }));
  await expect(modes).rejects.toThrow(/HTTP 422: .*stream mode 'messages-tuple' is not served/);
  const settings = lg.runs.create(threadId, 'research', { input: INPUT, context: { depth: 99 } });
  await expect(settings).rejects.toThrow(/HTTP 422: .*settings\.depth/);
  expect((await lg.threads.get(threadId)).status).toBe('idle');
});

test('a running run is cancelled; a busy thread refuses a second run', async () => {
  await setModelLatency(ollamaUrl(), 300);
  const lg = client();
  const threadId = (await lg.threads.create()).thread_id;
  const run = await lg.runs.create(threadId, 'research', { input: { ...INPUT, mode: 'quick' }, context: CONTEXT });
  expect(['pending', 'running']).toContain(run.status);
  expect((await lg.threads.get(threadId)).status).toBe('busy');
  await expect(
    lg.runs.create(threadId, 'research', { command: { resume: '/end' }, multitaskStrategy: 'reject' }),
  ).rejects.toThrow(/HTTP 409/);

  await lg.runs.cancel(threadId, run.run_id);
  expect((await lg.runs.get(threadId, run.run_id)).status).toBe('interrupted');
  expect((await lg.threads.get(threadId)).status).toBe('idle');
  await expect(lg.runs.cancel(threadId, run.run_id)).rejects.toThrow(/HTTP 409/);
});
