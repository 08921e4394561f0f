/** A small standalone HTML page for errors a person meets by following a link (expired download links). */
export function htmlErrorPage(title: string, message: string): string {
  const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(title)} · GoDB</title>
<style>body{margin:0;min-height:100vh;display:grid;place-items:center;font-family:system-ui,sans-serif;background:#0b1020;color:#eef1ff}
main{max-width:520px;padding:24px;text-align:center}h1{font-size:28px}p{color:#c4cae6;line-height:1.6}
a{display:inline-block;margin-top:12px;padding:10px 18px;border-radius:10px;background:#4f5dff;color:#fff;text-decoration:none;font-weight:600}</style>
</head><body><main><h1>${escape(title)}</h1><p>${escape(message)}</p><a href="/documentation/deployment-guide">Go to the Deployment Guide</a></main></body></html>`;
}
