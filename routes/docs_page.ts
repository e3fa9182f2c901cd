/** @module A self-contained API reference page: renders /openapi.json in the browser, no CDN. */

/** The HTML of `/docs`. Everything it needs is inline, so it works offline. */
export function docsPage(): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Simulacra API</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
header{background:#20232a;color:#fff;padding:16px 24px}header h1{margin:0;font-size:20px}
main{max-width:960px;margin:0 auto;padding:16px 24px}
.op{background:#fff;border:1px solid #ddd;border-radius:6px;margin:10px 0}
.op summary{cursor:pointer;padding:8px 12px;display:flex;gap:10px;align-items:center}
.m{font:bold 12px monospace;padding:2px 6px;border-radius:4px;color:#fff;min-width:52px;text-align:center}
.get{background:#2b7de9}.post{background:#16a34a}.put{background:#ca8a04}.patch{background:#9333ea}.delete{background:#dc2626}
.path{font-family:monospace}.body{padding:0 12px 12px}pre{background:#f3f3f3;padding:8px;overflow:auto;font-size:12px}
h2{margin-top:28px;border-bottom:1px solid #ddd}
</style></head>
<body><header><h1>Simulacra API</h1><div id="desc"></div></header>
<main id="out"><p>Loading <a href="/openapi.json">/openapi.json</a>…</p></main>
<script>
const esc = (s) => String(s ?? "").replace(/[&<>"]/g, (ch) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;"}[ch]));
fetch("/openapi.json").then((r) => r.json()).then((doc) => {
  document.getElementById("desc").textContent = doc.info.description + " — version " + doc.info.version;
  const groups = {};
  for (const [path, ops] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(ops)) {
    const tag = (op.tags && op.tags[0]) || "Other";
    (groups[tag] ||= []).push({ path, method, op });
  }
  let html = "";
  for (const [tag, ops] of Object.entries(groups)) {
    html += "<h2>" + esc(tag) + "</h2>";
    for (const { path, method, op } of ops) {
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const ok = Object.entries(op.responses || {}).map(([s, r]) => "<li><b>" + esc(s) + "</b> " + esc(r.description) + "</li>").join("");
      html += '<details class="op"><summary><span class="m ' + method + '">' + method.toUpperCase() + '</span><span class="path">' + esc(path) + "</span><span>" + esc(op.summary) + "</span></summary><div class=body>" +
        (op.description ? "<p>" + esc(op.description) + "</p>" : "") +
        (op.parameters?.length ? "<p>Parameters: " + op.parameters.map((p) => "<code>" + esc(p.name) + "</code> (" + esc(p.in) + ")").join(", ") + "</p>" : "") +
        (body ? "<p>Body:</p><pre>" + esc(JSON.stringify(body, null, 2)) + "</pre>" : "") +
        "<p>Responses:</p><ul>" + ok + "</ul></div></details>";
    }
  }
  html += "<h2>Schemas</h2><pre>" + esc(JSON.stringify(doc.components?.schemas ?? {}, null, 2)) + "</pre>";
  document.getElementById("out").innerHTML = html;
}).catch((e) => { document.getElementById("out").textContent = "Cannot load /openapi.json: " + e; });
</script></body></html>`;
}
