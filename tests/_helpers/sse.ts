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
