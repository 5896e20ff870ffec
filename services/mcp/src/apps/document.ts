// A View's HTML document: one page holding everything it needs (the stylesheet, the ext-apps SDK, the shared
// view script and the App's own), so the host's sandbox loads nothing else.
import { inlinedSdk } from './sdk.js';
import { appStyles } from './styles.js';
import { sharedViewScript } from './view-script.js';

/**
 * The View's own policy, beside whatever the host enforces: scripts and styles only as written here, no
 * connections, frames or forms; media from https only, for a call's recording (played when asked: the
 * player preloads nothing), which a host that keeps to the resource's empty domain lists still refuses.
 */
export const viewContentSecurityPolicy =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; media-src https:; base-uri 'none'; form-action 'none'";

/** One App: its resource, the tools whose results it shows, and its own script (run after the shared one). */
export interface AppDefinition {
  uri: `ui://${string}`;
  name: string;
  title: string;
  description: string;
  tools: readonly string[];
  script: string;
}

const escapeHtml = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;');

/** The page: a main landmark that says it waits for the result until the App's script renders it. */
export function appDocument(title: string, script: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${viewContentSecurityPolicy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>${escapeHtml(title)}</title>
<style>${appStyles}</style>
</head>
<body>
<main id="view" aria-busy="true">
<h1>${escapeHtml(title)}</h1>
<p class="muted" role="status">Waiting for the tool’s result…</p>
</main>
<script type="module">
${inlinedSdk()}
${sharedViewScript}
${script}
</script>
</body>
</html>
`;
}
