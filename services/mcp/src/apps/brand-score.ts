// The brand score card: the score and verdict, what each model said, and what to do about it.
import type { AppDefinition } from './document.js';

export const brandScoreApp: AppDefinition = {
  uri: 'ui://voice/brand-score.html',
  name: 'brand-score',
  title: 'Brand score',
  description: 'The brand score as a card: the 0-100 score and verdict, each model’s probe, and the recommendations by severity.',
  tools: ['service_brand_score'],
  script: `
const providers = { openai: 'OpenAI', anthropic: 'Anthropic' };

function probes(score) {
  return table(
    'What each model said',
    [['Model'], ['Knows the brand'], ['Status'], ['Signal', true], ['Said']],
    score.probes.map((probe) => [
      [providers[probe.provider] || probe.provider, h('br'), h('span', { class: 'muted' }, probe.model)],
      probe.knows ? 'Yes' : 'No',
      badge(probe.status),
      probe.signal_score + ' / 100',
      probe.error || (probe.said.recognition ? probe.said.recognition.summary : probe.said.description ? probe.said.description.description : ''),
    ]),
  );
}

function recommendations(score) {
  if (score.recommendations.length === 0) return muted('Nothing to recommend.');
  return items(score.recommendations, (item) => ({ headTag: 'h3', head: [badge(item.severity), ' ', item.title], body: item.body }));
}

startView('voice-brand-score', (score) => {
  view.append(
    h('h1', {}, 'Brand score: ' + score.brand),
    h(
      'div',
      { class: 'card' },
      h('p', { class: 'card-label', id: 'score-label' }, 'Score'),
      h('p', { class: 'card-figure' }, score.score + ' / 100'),
      h('meter', { min: 0, max: 100, low: 40, high: 70, optimum: 100, value: score.score, 'aria-labelledby': 'score-label' }),
      h('p', { class: 'badges' }, badge(score.verdict), score.partial ? badge('partial', 'One provider only') : null),
      h('p', {}, score.zinger),
    ),
    section('Probes', probes(score)),
    section('Recommendations', recommendations(score)),
    h('p', { class: 'hint' }, 'Scores used this month: ' + score.api.monthly_used + ' of ' + score.api.monthly_quota + '.'),
  );
});
`,
};
