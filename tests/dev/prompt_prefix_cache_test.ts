import assert from "node:assert/strict";
import {
  OPENAI_PROMPT_CACHE,
  PromptPrefixCache,
  VLLM_PREFIX_CACHE,
} from "../../dev/_prompt_prefix_cache.ts";
import { startFakeOpenAi } from "../../dev/fake_openai_server.ts";

/** A prompt of about `tokens` tokens (4 characters each) after a system message. */
function prompt(system: string, user: string) {
  return [{ role: "system" as const, content: system }, { role: "user" as const, content: user }];
}

const rules = "Rate the events. ".repeat(60); // ~255 tokens

Deno.test("PromptPrefixCache counts the leading 16-token blocks an earlier prompt to the same model had", () => {
  const cache = new PromptPrefixCache(VLLM_PREFIX_CACHE);
  assert.equal(cache.cachedTokens("m", prompt(rules, "Klaus eats")), 0, "nothing seen yet");
  const again = cache.cachedTokens("m", prompt(rules, "Maria reads a book about the town"));
  const shared = "system\n".length + rules.length + "\nuser\n".length;
  assert.equal(again, Math.floor(shared / 64) * 16, "whole blocks of the shared prefix");
  assert.equal(cache.cachedTokens("other", prompt(rules, "Klaus eats")), 0, "per model");
  const changedFirst = cache.cachedTokens("m", prompt(`x${rules}`, "Klaus eats"));
  assert.equal(changedFirst, 0, "a change at the start: nothing reused, however much follows");
});

Deno.test("PromptPrefixCache with OpenAI's rule caches nothing under 1,024 tokens, then steps of 128", () => {
  const cache = new PromptPrefixCache(OPENAI_PROMPT_CACHE);
  cache.cachedTokens("m", prompt(rules, "a"));
  assert.equal(cache.cachedTokens("m", prompt(rules, "b")), 0, "255 shared tokens: under 1,024");
  const long = "Profile line. ".repeat(400); // ~1,400 tokens
  cache.cachedTokens("m", prompt(long, "a"));
  const cached = cache.cachedTokens("m", prompt(long, "b"));
  assert.ok(cached >= 1024 && cached % 128 === 0, `${cached}`);
});

Deno.test("the fake OpenAI server reports cached_tokens, streamed or not", async () => {
  await using fake = await startFakeOpenAi();
  const ask = async (user: string, stream: boolean) => {
    const response = await fetch(`${fake.url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer t", "content-type": "application/json" },
      body: JSON.stringify({
        model: "fake-main",
        messages: prompt(rules, user),
        stream,
        ...stream ? { stream_options: { include_usage: true } } : {},
      }),
    });
    if (!stream) return (await response.json()).usage;
    const events = (await response.text()).split("\n\n").filter((e) => e.includes('"usage"'));
    return JSON.parse(events.at(-1)!.replace(/^data: /, "")).usage;
  };
  assert.equal((await ask("first", false)).prompt_tokens_details.cached_tokens, 0);
  const second = await ask("second", false);
  assert.ok(second.prompt_tokens_details.cached_tokens > 200, JSON.stringify(second));
  assert.ok(second.prompt_tokens_details.cached_tokens <= second.prompt_tokens);
  const streamed = await ask("third", true);
  assert.equal(
    streamed.prompt_tokens_details.cached_tokens,
    second.prompt_tokens_details.cached_tokens,
  );
  const stats = fake.promptCacheStats();
  assert.equal(stats.calls, 3);
  assert.equal(stats.cachedTokens, 2 * second.prompt_tokens_details.cached_tokens);
});
