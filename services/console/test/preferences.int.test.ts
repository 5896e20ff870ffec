// Preferences: each person's time zone (browsers send none), the language from Accept-Language, and the
// toast a saved change leaves on the next page.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Browser, type Harness, newOrgId, startHarness } from './support/harness.js';

const page = '/dashboard/settings/preferences';

describe('preferences', () => {
  let harness: Harness;
  let member: Browser;
  let memberId: string;

  before(async () => {
    harness = await startHarness();
    const person = await harness.person(newOrgId(), 'member');
    memberId = person.userId;
    member = harness.browser();
    await member.signIn(person.email, person.password);
  });
  after(() => harness.close());

  const timeZoneOf = async (userId: string) => (await harness.deps.prisma.user.findUniqueOrThrow({ where: { id: userId } })).timeZone;

  test('a person starts in UTC, in the language their browser asks for', async () => {
    const shown = await member.get(page);
    assert.equal(shown.statusCode, 200);
    assert.match(shown.body, /<a href="\/dashboard\/settings\/preferences" aria-current="page">Preferences<\/a>/);
    assert.match(shown.body, /<option value="UTC" selected>UTC<\/option>/);
    assert.match(shown.body, /id="preferences-locale">en</);
    const german = await member.get(page, { 'accept-language': 'de-DE,de;q=0.9,en;q=0.5' });
    assert.match(german.body, /id="preferences-locale">de-DE</);
    assert.match(german.body, /1\.234\.567/, 'numbers grouped the German way');
  });

  test('any role saves their own time zone; the next page says so once, and times follow it', async () => {
    await member.get(page);
    const saved = await member.post(page, { time_zone: 'Asia/Tokyo' });
    assert.equal(saved.statusCode, 303);
    assert.equal(saved.headers.location, page);
    assert.equal(await timeZoneOf(memberId), 'Asia/Tokyo');
    const next = await member.get(page);
    assert.match(next.body, /<p class="toast" role="status">Preferences saved\.<\/p>/);
    assert.match(next.body, /<option value="Asia\/Tokyo" selected>Asia\/Tokyo<\/option>/);
    assert.match(next.body, /Mar 15, 2026, 12:09 AM GMT\+9/, 'the sample time in Tokyo');
    assert.doesNotMatch((await member.get(page)).body, /class="toast"/, 'shown once');
  });

  test('an unknown zone is refused beside the field, and nothing changes', async () => {
    const before = await timeZoneOf(memberId);
    await member.get(page);
    const refused = await member.post(page, { time_zone: 'Mars/Olympus_Mons' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /aria-describedby="time-zone-hint time-zone-error" aria-invalid="true"/);
    assert.match(refused.body, /<p id="time-zone-error" class="field-error">Choose a time zone from the list\.<\/p>/);
    assert.equal(await timeZoneOf(memberId), before);
  });

  test('without the form token the change is refused; a forged flash cookie shows nothing', async () => {
    assert.equal((await member.post(page, { time_zone: 'UTC' }, { csrf: false })).statusCode, 403);
    member.cookies.set('console_flash', encodeURIComponent('<script>alert(1)</script>'));
    const shown = await member.get(page);
    assert.doesNotMatch(shown.body, /class="toast"|<script>alert/);
    assert.equal(member.cookies.has('console_flash'), false, 'and the cookie is cleared');
  });

  test('signed out, the page asks for a sign-in', async () => {
    const visitor = harness.browser();
    const response = await visitor.get(page);
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard/sign-in');
  });
});
