import { negotiateLocale } from '#shared/api/locales.js';
import { countLinkChange } from '#shared/platform/metrics.js';
import type { PageAnswer, PublicRequest } from '#shared/platform/public-page.js';
import type { PreferenceStore } from '#shared/preferences/store.js';
import { linkEvidence } from './evidence.js';
import { type FormFields, parseForm, valuesOf } from './form.js';
import { type Said, said, wordsFor } from './i18n/words.js';
import type { KeyringSource } from './keyring.js';
import type { LinkStateReader } from './link-state.js';
import { setFromLink } from './link-writes.js';
import { asksForLogo, logoAnswer } from './logo-answer.js';
import { LIST_UNSUBSCRIBE_POST } from './model.js';
import { openWithState } from './opened.js';
import { brandOf } from './pages/brand.js';
import { badRequestPage, fixedPagesIn } from './pages/fixed-pages.js';
import { pageHeaders } from './pages/layout.js';
import { lockedPage, offerPage, unsubscribedPage } from './pages/unsubscribe-pages.js';
import { choicesOf, chosen, WIDER_SCOPES } from './targets.js';

/*
 * /u/{token} (docs/api.md, The pages: /u/{token} and /p/{token}). GET shows what would be unsubscribed and never
 * changes anything (mail scanners open every link). POST is RFC 8058's one-click unsubscribe: the
 * body `List-Unsubscribe=One-Click` (and, from the page, a `scope`) sets the link's channel to
 * NONE for its scope, unless the policy locks it. One read and one write: the link's state
 * (link-state.ts), then one conditional update of the entry through config/set's code.
 */

export interface UnsubscribeDeps {
  keys: KeyringSource;
  reader: LinkStateReader;
  store: PreferenceStore;
  now?: () => Date;
  /** Keep the client's address and user agent in the evidence (the `linkEvidence` setting); default yes. */
  keepClient?: boolean;
}

const [FIELD, VALUE] = LIST_UNSUBSCRIBE_POST.split('=') as [string, string];

export const UNSUBSCRIBE_REASONS = {
  notOneClick: said('reason.notOneClick', { field: LIST_UNSUBSCRIBE_POST }),
  unknownField: said('reason.unsubscribeFields', { field: FIELD }),
  unknownScope: said('reason.scope', { scopes: WIDER_SCOPES.join(', ') }),
  notThisLink: said('reason.notThisLink'),
} as const;

/** The one-click form as the evidence's page version describes it. */
const ONE_CLICK_FORM = JSON.stringify([LIST_UNSUBSCRIBE_POST, ['scope', ...WIDER_SCOPES]]);

type FormCheck = { ok: true; scope: string | undefined } | { ok: false; reason: Said };

/** The one-click form: `List-Unsubscribe=One-Click` once, `scope` at most once, nothing else. */
const checkForm = (fields: FormFields): FormCheck => {
  if (fields.some(([name]) => name !== FIELD && name !== 'scope'))
    return { ok: false, reason: UNSUBSCRIBE_REASONS.unknownField };
  const oneClick = valuesOf(fields, FIELD);
  if (oneClick.length !== 1 || oneClick[0] !== VALUE) return { ok: false, reason: UNSUBSCRIBE_REASONS.notOneClick };
  const scopes = valuesOf(fields, 'scope');
  if (scopes.length > 1 || (scopes[0] !== undefined && !(WIDER_SCOPES as readonly string[]).includes(scopes[0]))) {
    return { ok: false, reason: UNSUBSCRIBE_REASONS.unknownScope };
  }
  return { ok: true, scope: scopes[0] };
};

export const unsubscribePage =
  ({ keys, reader, store, now = () => new Date(), keepClient = true }: UnsubscribeDeps) =>
  async (request: PublicRequest): Promise<PageAnswer> => {
    const at = now();
    const opened = await openWithState({ keys, reader }, request.token, at, { entries: false }, 'unsubscribe');
    // The 404 page is the same for every failure: its language comes from the request alone.
    const notFound = (): PageAnswer => ({
      status: 404,
      body: fixedPagesIn(negotiateLocale({ acceptLanguage: request.acceptLanguage })).notFound,
    });
    if (!opened) return notFound();
    const { link, state } = opened;
    if (asksForLogo(request.query, request.method)) return logoAnswer(state, request.query) ?? notFound();
    const { policy } = state.policy;
    const brand = brandOf(state.branding);
    const headers = pageHeaders(brand);
    const words = wordsFor(
      negotiateLocale({
        link: link.locale,
        acceptLanguage: request.acceptLanguage,
        organization: state.branding?.branding.defaultLocale,
      }),
    );
    const answer = (status: 200 | 400, body: string): PageAnswer => ({ status, body, ...(headers ? { headers } : {}) });
    // Only a token made before purposes existed also opens the preference page, so only its page links there.
    const preferencesToken = link.purpose === undefined ? request.token : undefined;

    if (request.method === 'GET') {
      return answer(200, offerPage(words, policy, link.channel, choicesOf(link, state), preferencesToken, brand));
    }

    const form = await parseForm(request.body, request.contentType);
    const badRequest = (reason: Said) => answer(400, badRequestPage(words, reason, brand));
    if (!form.ok) return badRequest(form.reason);
    const checked = checkForm(form.fields);
    if (!checked.ok) return badRequest(checked.reason);
    const choice = chosen(link, state, checked.scope);
    if (!choice) return badRequest(UNSUBSCRIBE_REASONS.notThisLink);
    if (choice.lock) return answer(200, lockedPage(words, policy, link.channel, choice, preferencesToken, brand));

    await setFromLink(
      { store, now: () => at },
      {
        link,
        target: choice.target,
        policy: state.policy,
        evidence: linkEvidence({
          page: 'link',
          link,
          locale: words.locale,
          form: ONE_CLICK_FORM,
          client: request.client ?? {},
          keepClient,
        }),
        signal: request.signal,
      },
      { [link.channel]: 'NONE' },
    );
    countLinkChange();
    return answer(200, unsubscribedPage(words, policy, link.channel, choice.target, preferencesToken, brand));
  };
