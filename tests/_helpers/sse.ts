/** @module Server-sent events as route tests read them: the messages of a stream's text. */

/** One SSE message; `event` is "message" where the block names none, as EventSource has it. */
export interface SseMessage {
  event: string;
  id?: string;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** The messages (blocks that carry `data:`) in the text of an event stream. */
export function sseMessages(text: string): SseMessage[] {
  return text.split("\n\n").filter((block) => block.includes("data:")).map((block) => ({
    event: /^event: (.*)$/m.exec(block)?.[1] ?? "message",
    id: /^id: (.*)$/m.exec(block)?.[1],
    data: JSON.parse(/^data: (.*)$/m.exec(block)![1]),
  }));
}

/** Reads an open stream until `count` messages arrived (or it ended), then disconnects. */
export async function readSse(res: Response, count: number): Promise<SseMessage[]> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (sseMessages(text).length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return sseMessages(text).slice(0, count);
}

/**
 * Counts the event streams of an app that are over, through `AppOptions.onEventStreamEnd`, so a
 * test waits for its disconnected streams to stop (before the sanitizers look) on the streams
 * themselves, not on the clock.
 */
export class StreamEnds {
  #ended = 0;
  #waiting: { count: number; resolve: () => void }[] = [];

  /** The hook to pass as `onEventStreamEnd`. */
  readonly hook = (): void => {
    this.#ended++;
    const due = this.#waiting.filter((w) => w.count <= this.#ended);
    this.#waiting = this.#waiting.filter((w) => w.count > this.#ended);
    for (const w of due) w.resolve();
  };

  /** Resolves once `count` streams in all are over. */
  ended(count: number): Promise<void> {
    if (count <= this.#ended) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ count, resolve }));
  }
}
