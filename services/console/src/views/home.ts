import { organizationLabel } from '../domain/organizations.js';
import { canManage } from '../domain/roles.js';
import type { SignedIn } from '../domain/sessions.js';
import { html } from './html.js';
import { csrfField, page } from './layout.js';

export function homePage(signedIn: SignedIn) {
  return page({
    title: 'Home',
    signedIn,
    path: '/dashboard',
    body: html`<h1>Organization ${organizationLabel(signedIn)}</h1>
      <p class="lead">Signed in as ${signedIn.user.name} (${signedIn.user.email}), ${signedIn.role} of this organization.
        ${canManage(signedIn.role) ? 'You can manage its members.' : 'You can see its pages; owners and admins make changes.'}</p>
      <section aria-labelledby="sessions-heading" class="panel">
        <h2 id="sessions-heading">Sessions</h2>
        <p>Signed in on another device you no longer use? End every session, this one included.</p>
        <form method="post" action="/dashboard/sign-out-everywhere">
          ${csrfField(signedIn.csrfToken)}
          <button type="submit">Sign out everywhere</button>
        </form>
      </section>`,
  });
}
