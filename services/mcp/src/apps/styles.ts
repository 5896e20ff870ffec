// The one stylesheet of every View: the console's tokens (services/console/src/static/console.css: its
// colours, type scale and spacing) and the few components the Views use, named as the console names them.
// Colours are `light-dark()` pairs, so the page follows `color-scheme`: the reader's preference until the host
// says its theme (the SDK's applyDocumentTheme sets it). Where the host gives its own style variables
// (MCP Apps' `--color-background-primary` and the rest), they win, so a View sits in its host's look.

export const appStyles = `
:root {
  color-scheme: light dark;
  --space-1: 0.25rem;
  --space-2: 0.5rem;
  --space-3: 0.75rem;
  --space-4: 1rem;
  --space-5: 1.5rem;
  --font-sans: ui-sans-serif, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  --font-mono: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  --text-xs: 0.75rem;
  --text-sm: 0.8125rem;
  --text-md: 0.9375rem;
  --text-lg: 1.125rem;
  --text-xl: 1.375rem;
  --text-2xl: 1.75rem;
  --radius-md: var(--border-radius-md, 8px);
  --radius-lg: var(--border-radius-lg, 12px);
  --radius-full: var(--border-radius-full, 999px);
  --surface: var(--color-background-primary, light-dark(#ffffff, #15151b));
  --surface-sunken: var(--color-background-secondary, light-dark(#f0f0f3, #1d1d25));
  --border: var(--color-border-primary, light-dark(#e1e1e7, #2a2a35));
  --border-strong: var(--color-border-secondary, light-dark(#c6c6d0, #3d3d4a));
  --text: var(--color-text-primary, light-dark(#16161d, #ececf1));
  --text-muted: var(--color-text-secondary, light-dark(#565663, #a4a4b2));
  --link: light-dark(#4338ca, #aeb4fd);
  --focus: var(--color-ring-primary, light-dark(#4f46e5, #8b93fa));
  --neutral-text: light-dark(#3f3f46, #d4d4dc);
  --neutral-tint: light-dark(#ececf0, #2a2a33);
  --info-text: light-dark(#1e40af, #93c5fd);
  --info-tint: light-dark(#dbeafe, #172554);
  --success-text: light-dark(#166534, #86efac);
  --success-tint: light-dark(#dcfce7, #0f2e1b);
  --warning-text: light-dark(#854d0e, #fcd34d);
  --warning-tint: light-dark(#fef3c7, #3a2a06);
  --danger-text: light-dark(#991b1b, #fca5a5);
  --danger-tint: light-dark(#fee2e2, #450a0a);
}
*, *::before, *::after { box-sizing: border-box; }
html {
  font-family: var(--font-sans);
  font-size: var(--text-md);
  line-height: 1.5;
  color: var(--text);
  background: var(--surface);
  -webkit-text-size-adjust: 100%;
}
body { margin: 0; }
main { padding: var(--space-4); max-width: 60rem; }
h1, h2, h3 { line-height: 1.25; margin: 0 0 var(--space-3); letter-spacing: -0.01em; overflow-wrap: anywhere; }
h1 { font-size: var(--text-xl); }
h2 { font-size: var(--text-lg); margin-top: var(--space-5); }
h3 { font-size: var(--text-md); margin-top: 0; }
p { margin: 0 0 var(--space-3); }
a { color: var(--link); text-underline-offset: 2px; }
code { font-family: var(--font-mono); font-size: 0.9em; overflow-wrap: anywhere; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 2px; }
.muted { color: var(--text-muted); }
.hint { color: var(--text-muted); font-size: var(--text-sm); }
.badges { display: flex; flex-wrap: wrap; gap: var(--space-2); }
.badge {
  display: inline-block;
  padding: 0.0625rem var(--space-2);
  border-radius: var(--radius-full);
  font-size: var(--text-xs);
  font-weight: 600;
  line-height: 1.5;
  white-space: nowrap;
}
.badge.neutral { background: var(--neutral-tint); color: var(--neutral-text); }
.badge.info { background: var(--info-tint); color: var(--info-text); }
.badge.success { background: var(--success-tint); color: var(--success-text); }
.badge.warning { background: var(--warning-tint); color: var(--warning-text); }
.badge.danger { background: var(--danger-tint); color: var(--danger-text); }
dl {
  display: grid;
  grid-template-columns: minmax(8rem, max-content) minmax(0, 1fr);
  gap: var(--space-2) var(--space-5);
  margin: 0 0 var(--space-4);
  padding: var(--space-4) var(--space-5);
  border: 1px solid var(--border);
  border-radius: var(--radius-lg);
}
dt { color: var(--text-muted); font-size: var(--text-sm); }
dd { margin: 0; overflow-wrap: anywhere; }
.table-wrap {
  position: relative;
  overflow: auto;
  border: 1px solid var(--border);
  border-radius: var(--radius-lg);
  margin: 0 0 var(--space-4);
}
table { border-collapse: separate; border-spacing: 0; width: 100%; font-size: var(--text-sm); }
caption { text-align: left; padding: var(--space-3) var(--space-4); font-weight: 600; }
th, td { text-align: left; vertical-align: top; padding: var(--space-2) var(--space-4); border-bottom: 1px solid var(--border); }
tbody tr:last-child > *, tfoot tr:last-child > * { border-bottom: 0; }
thead th {
  background: var(--surface-sunken);
  color: var(--text-muted);
  font-size: var(--text-xs);
  font-weight: 600;
  text-transform: uppercase;
  letter-spacing: 0.03em;
  white-space: nowrap;
}
tfoot th, tfoot td { font-weight: 600; }
/* An id in a cell stays whole: the table scrolls in its box rather than break it letter by letter. */
td code { overflow-wrap: normal; white-space: nowrap; }
.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.card {
  border: 1px solid var(--border);
  border-radius: var(--radius-lg);
  padding: var(--space-4) var(--space-5);
  margin: 0 0 var(--space-4);
}
.card-label { margin: 0; color: var(--text-muted); font-size: var(--text-sm); font-weight: 550; }
.card-figure { margin: var(--space-1) 0; font-size: var(--text-2xl); font-weight: 650; font-variant-numeric: tabular-nums; }
meter { width: 100%; max-width: 24rem; }
.items { list-style: none; padding: 0; margin: 0 0 var(--space-4); display: grid; gap: var(--space-3); }
.item {
  border: 1px solid var(--border);
  border-radius: var(--radius-md);
  padding: var(--space-2) var(--space-4);
  overflow-wrap: anywhere;
}
.item p:last-child { margin-bottom: 0; }
.item.contact { background: var(--surface-sunken); }
.item.system { border-style: dashed; }
.item-head { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-2); font-size: var(--text-sm); font-weight: 600; }
.item-body { white-space: pre-wrap; }
.timeline { list-style: none; padding: 0; margin: 0 0 var(--space-4); display: flex; flex-wrap: wrap; gap: var(--space-2) var(--space-4); }
.timeline li { display: flex; align-items: center; gap: var(--space-2); font-size: var(--text-sm); }
audio { display: block; width: 100%; max-width: 32rem; margin: 0 0 var(--space-3); }
button {
  font: inherit;
  font-size: var(--text-sm);
  font-weight: 600;
  color: var(--text);
  background: var(--surface-sunken);
  border: 1px solid var(--border-strong);
  border-radius: var(--radius-md);
  padding: var(--space-1) var(--space-3);
  min-height: 2.25rem;
  cursor: pointer;
}
@media (max-width: 30rem) {
  main { padding: var(--space-3); }
  dl { grid-template-columns: minmax(0, 1fr); gap: 0; padding: var(--space-3) var(--space-4); }
  dd + dt { margin-top: var(--space-3); }
  th, td { padding: var(--space-2) var(--space-3); }
  thead th { white-space: normal; }
}
`;
