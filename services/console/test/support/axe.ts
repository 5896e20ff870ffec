// axe-core run in a page of the real browser. The console's Content-Security-Policy (`script-src 'self'`)
// refuses an injected inline script, as it should; so axe runs in a browser context made with
// `bypassCSP: true` that is used only for these checks, while the journey's contexts keep the policy enforced.
import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** The impacts a page must not have. */
const blocking = new Set(['serious', 'critical']);

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  helpUrl: string;
  nodes: Array<{ target: unknown[]; failureSummary?: string }>;
}

/** The page's serious and critical violations (WCAG 2.x A and AA rules and axe's best practices). */
export async function blockingViolations(page: Page): Promise<Violation[]> {
  // These functions run in the page (the repository's TypeScript has no DOM library, hence globalThis).
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.addScriptTag({ content: axe.source });
  const violations = await page.evaluate(async () => {
    const { axe: injected } = globalThis as unknown as { axe: typeof axe };
    const results = await injected.run({ resultTypes: ['violations'] });
    return results.violations.map(({ id, impact, help, helpUrl, nodes }) => ({
      id,
      impact: impact ?? null,
      help,
      helpUrl,
      nodes: nodes.map(({ target, failureSummary }) => ({ target: target as unknown[], ...(failureSummary ? { failureSummary } : {}) })),
    }));
  });
  return violations.filter((violation) => blocking.has(violation.impact ?? ''));
}

/** One line per violation and one per element, so a failing test says what to fix and where. */
export function describeViolations(violations: Violation[]): string {
  return violations
    .map(
      (violation) =>
        `${violation.impact}: ${violation.id}: ${violation.help} (${violation.helpUrl})\n` +
        violation.nodes
          .map((node) => `    at ${node.target.join(' ')}${node.failureSummary ? `: ${node.failureSummary.replace(/\s+/g, ' ')}` : ''}`)
          .join('\n'),
    )
    .join('\n');
}
