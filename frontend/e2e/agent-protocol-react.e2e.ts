// @vitest-environment jsdom
/**
 * React's `useStream` (`@langchain/langgraph-sdk/react`) against /api/langgraph on the e2e stack: the stream
 * modes it asks for (`values` for its values and interrupt, `custom` for `onCustomEvent`) are served; an
 * interactive run is submitted, its clarification and plan interrupts appear in `interrupt` and are answered
 * with `submit(undefined, {command: {resume}})`, and the report arrives in `values`; a component that reads
 * `messages` (mode `messages-tuple`) gets the refusal naming the mode as its `error`.
 */
import { useStream } from '@langchain/langgraph-sdk/react';
import { act, renderHook, waitFor } from '@testing-library/react';
import { expect, test } from 'vitest';

import { baseUrl, QUESTION } from './helpers';
import { LAWS } from './stack';

interface RunValues {
  [key: string]: unknown;
  question?: string;
  result?: { report_markdown: string };
}

interface Proposal {
  kind: string;
  tasks?: { id: string; title: string }[];
}

const LONG = { timeout: 120_000, interval: 100 };

test('useStream submits a run, shows its interrupts, resumes them and receives the report', async () => {
  const progress: string[] = [];
  // as a component renders it: reading values and interrupt (useStream asks for the modes read)
  const { result } = renderHook(() => {
    const stream = useStream<RunValues>({
      apiUrl: `${baseUrl()}api/langgraph`,
      apiKey: null,
      assistantId: 'research',
      onCustomEvent: (data) => progress.push(String((data as { type: string }).type)),
    });
    return { stream, values: stream.values, interrupt: stream.interrupt, error: stream.error };
  });
  const interruptKind = () => (result.current.interrupt?.value as Proposal | undefined)?.kind;

  await act(async () => {
    await result.current.stream.submit(
      { question: QUESTION, collections: [LAWS] },
      { context: { depth: 0, max_clarify_rounds: 2 } },
    );
  });
  expect(result.current.error).toBeUndefined();
  await waitFor(() => expect(interruptKind()).toBe('clarification'), LONG);
  expect(result.current.values.question).toBe(QUESTION);
  expect(progress).toContain('phase');

  await act(async () => {
    await result.current.stream.submit(undefined, { command: { resume: 'Nur Gebühren für Genehmigungen.' } });
  });
  expect(result.current.error).toBeUndefined();
  await waitFor(() => expect(interruptKind()).toBe('plan'), LONG);
  const plan = result.current.interrupt!.value as Proposal;
  expect(plan.tasks!.length).toBeGreaterThan(0);

  await act(async () => {
    await result.current.stream.submit(undefined, { command: { resume: { tasks: null } } });
  });
  expect(result.current.error).toBeUndefined();
  await waitFor(() => expect(result.current.values.result?.report_markdown ?? '').not.toBe(''), LONG);
  expect(result.current.interrupt).toBeUndefined();
  expect(progress).toContain('report');
});

test('a component that reads messages (mode messages-tuple) gets the refusal naming the mode', async () => {
  const { result } = renderHook(() => {
    const stream = useStream<RunValues>({ apiUrl: `${baseUrl()}api/langgraph`, apiKey: null, assistantId: 'research' });
    return { stream, messages: stream.messages, error: stream.error };
  });
  await act(async () => {
    await result.current.stream.submit({ question: QUESTION, collections: [LAWS] });
  });
  await waitFor(() => expect(String(result.current.error)).toMatch(/HTTP 422: .*stream mode 'messages-tuple' is not served/), LONG);
  expect(result.current.messages).toEqual([]);
});
