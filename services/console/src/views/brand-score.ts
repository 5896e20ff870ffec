import {
  type BrandProbe,
  type BrandScoreRecord,
  type BrandScoreResponse,
  type BrandVerdict,
  knowledgeLimits,
  type Page,
  type RecommendationSeverity,
  recommendationSeverities,
} from '@voice/proto';
import type { SignedIn } from '../domain/sessions.js';
import { badge, dataTable, emptyState, type FieldErrors, field, formatFor, pageHeader, pager, type Tone, time } from './components.js';
import type { Formatter } from './format.js';
import { type Html, html } from './html.js';
import { csrfField, notice, page } from './layout.js';

export const brandScorePath = '/dashboard/brand-score';

/** What the score form typed, with the operation's refusals by field. */
export interface BrandScoreForm {
  brand?: string | undefined;
  url?: string | undefined;
  errors?: FieldErrors;
  error?: string | undefined;
}

const verdictTones: Record<BrandVerdict, Tone> = {
  invisible: 'danger',
  faint: 'warning',
  emerging: 'info',
  known: 'success',
  prominent: 'success',
};
const severityTones: Record<RecommendationSeverity, Tone> = { critical: 'danger', high: 'warning', medium: 'info', low: 'neutral' };
const probeTones: Record<BrandProbe['status'], Tone> = { ok: 'success', partial: 'warning', failed: 'danger' };
const providerNames: Record<BrandProbe['provider'], string> = { openai: 'OpenAI', anthropic: 'Anthropic' };

const toned = (tone: Tone, text: string, id?: string) => html`<span class="badge ${tone}"${id ? html` id="${id}"` : ''}>${text}</span>`;

function scoreForm(signedIn: SignedIn, form: BrandScoreForm): Html {
  return html`<section class="panel" aria-labelledby="brand-form-heading">
    <h2 id="brand-form-heading">Score a brand</h2>
    ${notice('error', form.error)}
    <form method="post" action="${brandScorePath}" class="stack">
      ${csrfField(signedIn.csrfToken)}
      ${field({
        id: 'brand-name',
        name: 'brand',
        label: 'Brand',
        value: form.brand ?? '',
        error: form.errors?.brand,
        attributes: html`required maxlength="${knowledgeLimits.brandMaxLength}"`,
      })}
      ${field({
        id: 'brand-url',
        name: 'url',
        label: 'Website',
        type: 'url',
        value: form.url ?? '',
        hint: 'The brand’s own site, http:// or https://.',
        error: form.errors?.url,
        attributes: html`required maxlength="${knowledgeLimits.urlMaxLength}"`,
      })}
      <button type="submit" id="brand-score-submit">Score the brand</button>
      <p class="hint">Two language models are asked what they know; it takes as long as the slower one, often several seconds.</p>
    </form>
  </section>`;
}

function probeCard(probe: BrandProbe, format: Formatter): Html {
  const { recognition, description, category } = probe.said;
  return html`<article class="panel probe" id="probe-${probe.provider}" aria-labelledby="probe-${probe.provider}-heading">
    <h3 id="probe-${probe.provider}-heading">${providerNames[probe.provider]} <span class="muted">${probe.model}</span></h3>
    <p>${toned(probeTones[probe.status], probe.status)} ${probe.knows ? 'Knows the brand.' : 'Does not know the brand.'}</p>
    <dl>
      <dt>Signal</dt><dd>${format.number(probe.signal_score)} / 100</dd>
      <dt>Answered in</dt><dd>${format.number(probe.latency_ms)} ms</dd>
      ${recognition ? html`<dt>Recognition</dt><dd>${recognition.summary} (confidence ${format.number(Math.round(recognition.confidence * 100))}%)</dd>` : ''}
      ${description ? html`<dt>Description</dt><dd>${description.description}</dd>` : ''}
      ${description && description.competitors.length > 0 ? html`<dt>Competitors</dt><dd>${description.competitors.join(', ')}</dd>` : ''}
      ${
        category
          ? html`<dt>In its category</dt><dd>${category.named ? `Named${category.rank ? ` #${category.rank}` : ''} among ${category.brands.length} brands of “${category.category}”.` : `Not named among the brands of “${category.category}”.`}</dd>`
          : ''
      }
      ${probe.error ? html`<dt>Error</dt><dd>${probe.error}</dd>` : ''}
    </dl>
  </article>`;
}

/** The score card: the figure, its verdict, the zinger, each provider's probe and the recommendations by severity. */
export function scoreCard(result: BrandScoreResponse, format: Formatter): Html {
  const bySeverity = recommendationSeverities
    .map((severity) => ({ severity, items: result.recommendations.filter((item) => item.severity === severity) }))
    .filter((group) => group.items.length > 0);
  return html`<section aria-labelledby="score-heading" id="score-card">
    <h2 id="score-heading">${result.brand}</h2>
    <div class="cards">
      <div class="card">
        <p class="card-label">Score</p>
        <p class="card-figure" id="brand-score-figure">${format.number(result.score)}<span class="muted"> / 100</span></p>
        <p class="card-detail">${toned(verdictTones[result.verdict], result.verdict, 'brand-verdict')}${result.partial ? html` ${badge('partial', 'one provider only')}` : ''}</p>
      </div>
    </div>
    <p class="zinger" id="brand-zinger">${result.zinger}</p>
    <h3>What each model said</h3>
    <div class="probes">${result.probes.map((probe) => probeCard(probe, format))}</div>
    <h3>Recommendations</h3>
    ${
      bySeverity.length === 0
        ? html`<p class="muted">None: nothing stands out to improve.</p>`
        : bySeverity.map(
            (
              group,
            ) => html`<ul class="recommendations" id="recommendations-${group.severity}" aria-label="${group.severity} recommendations">
              ${group.items.map(
                (item) =>
                  html`<li class="recommendation">${toned(severityTones[group.severity], group.severity)} <strong>${item.title}</strong><p>${item.body}</p></li>`,
              )}
            </ul>`,
          )
    }
  </section>`;
}

/** The organization's earlier scores, newest first: to compare this month's with last month's. */
function historySection(history: ScoreHistory, format: Formatter): Html {
  const { page: scores } = history;
  return html`<section aria-labelledby="history-heading">
    <h2 id="history-heading">Earlier scores</h2>
    ${
      scores.data.length === 0
        ? emptyState({
            id: 'brand-history-empty',
            title: history.firstPage ? 'No brand scored yet.' : 'No older scores.',
            next: 'Each score is kept here, so you can compare one month with another.',
          })
        : dataTable({
            id: 'brand-history',
            caption: 'Earlier brand scores, newest first',
            captionHidden: true,
            head: html`<th scope="col">Scored</th><th scope="col">Brand</th><th scope="col">Website</th><th scope="col">Score</th><th scope="col">Verdict</th>`,
            rows: scores.data.map(
              (score) => html`<tr id="score-${score.id}">
                <td class="nowrap">${time(format, score.created_at)}</td>
                <th scope="row">${score.brand}</th>
                <td><code>${score.url}</code></td>
                <td class="numeric">${format.number(score.score)}</td>
                <td>${toned(verdictTones[score.verdict], score.verdict)}${score.partial ? html` ${badge('partial', 'one provider')}` : ''}</td>
              </tr>`,
            ),
          })
    }
    ${pager({
      label: 'Pages of earlier scores',
      newest: history.firstPage ? undefined : brandScorePath,
      older: scores.next_cursor
        ? {
            href: `${brandScorePath}?${new URLSearchParams({ cursor: scores.next_cursor })}`,
            id: 'brand-history-older',
            text: 'Older scores',
          }
        : undefined,
    })}
  </section>`;
}

export interface ScoreHistory {
  page: Page<BrandScoreRecord>;
  firstPage: boolean;
}

/** The brand score: its form, after scoring the card, and the organization's earlier scores. */
export function brandScorePage(signedIn: SignedIn, view: { form?: BrandScoreForm; result?: BrandScoreResponse; history: ScoreHistory }) {
  const format = formatFor(signedIn);
  return page({
    title: view.result ? `Brand score: ${view.result.brand}` : 'Brand score',
    signedIn,
    path: brandScorePath,
    body: html`${pageHeader({
      title: 'Brand score',
      lead: 'How well two large language models know a brand: a score out of 100, each model’s answers, and what to do about it.',
    })}
      ${view.result ? scoreCard(view.result, format) : ''}
      ${scoreForm(signedIn, view.form ?? (view.result ? { brand: view.result.brand } : {}))}
      ${historySection(view.history, format)}`,
  });
}
