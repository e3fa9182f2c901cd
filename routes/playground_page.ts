/** @module The playground page served at `/`. */

/**
 * The playground's HTML. For now it shows the service status and how to start; the town view,
 * memory inspector and chat arrive with the World and In-character issues.
 */
export function playgroundPage(modelMode: "offline" | "openai", storage: string): string {
  const offline = modelMode === "offline";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Simulacra playground</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:760px;margin:40px auto;padding:0 20px;color:#1d1d1f}
.badge{display:inline-block;padding:2px 8px;border-radius:10px;font-size:13px;font-weight:600}
.offline{background:#fde68a;color:#78350f}.online{background:#bbf7d0;color:#14532d}code{background:#f3f3f3;padding:1px 4px}</style></head>
<body><h1>Simulacra playground</h1>
<p>Model: <span class="badge ${offline ? "offline" : "online"}" id="model-mode">${
    offline ? "offline model (rule-based, no API key)" : "OpenAI-compatible model"
  }</span> · Storage: <span class="badge online">${
    storage === "upstash" ? "Upstash" : "embedded"
  }</span></p>
${
    offline
      ? "<p>Answers come from the built-in offline model: a rule-based stand-in that replays exactly with a world seed, not a language model. Set <code>OPENAI_API_KEY</code> or <code>OPENAI_BASE_URL</code> for real minds.</p>"
      : ""
  }
<p>The town view, memory inspector and chat are coming. Meanwhile: <a href="/docs">API reference</a> · <a href="/openapi.json">openapi.json</a> · <a href="/health">health</a>.</p>
<pre>curl -X POST localhost:8000/v1/worlds -H 'content-type: application/json' \\
  -d '{"name":"Smallville","startTime":"2023-02-13T07:00:00"}'</pre>
</body></html>`;
}
