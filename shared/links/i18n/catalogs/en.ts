/*
 * The pages' words in English: the reference catalog, in ICU MessageFormat. Every other catalog
 * has exactly its keys and, in each message, the same placeholders (test/unit/link-catalogs.test.ts).
 * Typographic apostrophes only: in ICU a straight one starts quoted text.
 */
export const en = {
  'notFound.title': 'This link does not work',
  'notFound.body':
    'The link may have expired, or been replaced by a newer one. Use the link in a more recent email, or change your notification settings where you use the service.',
  'methodNotAllowed.title': 'This request is not supported',
  'methodNotAllowed.body': 'This page can only be opened, or sent with its own form.',
  'tryAgain.title': 'Something went wrong',
  'tryAgain.body': 'Nothing was changed. Please try again in a minute.',
  'brand.support': 'Help and support',
  'brand.privacy': 'Privacy policy',
  'badRequest.title': 'This request could not be understood',
  'badRequest.body': '{reason} Nothing was changed.',

  'channel.name': '{channel, select, inbox {In-app inbox} email {Email} other {Slack}}',
  'channel.notifications':
    '{channel, select, inbox {in-app inbox notifications} email {email notifications} other {Slack notifications}}',
  'value.name': '{value, select, ALL {Every notification} MINE {Only what involves me} other {None}}',
  'value.inline': '{value, select, ALL {every notification} MINE {only what involves me} other {none}}',

  'target.documentCategory': '{what} about {category} on this document',
  'target.document': '{what} about this document',
  'target.category': '{what} about {category}, on every document',
  'target.organization': '{what} from this organization',
  'target.organizationNamed': '{what} from {organization}',

  'unsubscribe.title':
    '{channel, select, inbox {Unsubscribe from in-app inbox notifications} email {Unsubscribe from email notifications} other {Unsubscribe from Slack notifications}}',
  'unsubscribe.legend': 'Unsubscribe from',
  'unsubscribe.button': 'Unsubscribe',
  'unsubscribe.noLonger': 'You will no longer get {target}.',
  'unsubscribe.noLongerExcept': 'You will no longer get {target}, except {kept}: your organization always sends those.',
  'unsubscribe.lock': 'Your organization has set {target} to “{value}”: this cannot be changed here.',
  'unsubscribe.elsewhere': '{choose}, or change them where you use the service.',
  'unsubscribe.choose': '<link>Choose which notifications you get</link>',
  'unsubscribe.chooseInEmail': 'Choose which notifications you get with the preferences link of the email',
  'unsubscribed.title': 'You are unsubscribed',
  'unsubscribed.changedMind': 'Changed your mind? {choose}.',
  'locked.title': 'Nothing was changed',
  'locked.more': '{choose}.',

  'preferences.title': 'Your notification settings',
  'preferences.saved': 'Your choices are saved.',
  'preferences.intro':
    'Choose, for each kind of notification, what reaches you on each channel. Choose “Default” to use the default: the setting for everything else, or your organization’s. Each says what it is now. Further down: your time zone and quiet hours.',
  'preferences.organization': 'From this organization',
  'preferences.organizationNamed': 'From {organization}',
  'preferences.document': 'This document',
  'preferences.documentNote': 'These settings win over the ones above, for this document only.',
  'preferences.default': 'Default: {value}',
  'preferences.locked': '(set by your organization: it cannot be changed here)',
  'preferences.save': 'Save',
  'preferences.dataTitle': 'Your data',
  'preferences.dataIntro': 'Everything kept here about your choices, and how each was made, as one file.',
  'preferences.download': 'Download my data',
  'row.everythingElse': 'Everything else',
  'row.everythingElseNote': 'Notifications of any other kind, and of the kinds above that are left at the default.',
  'row.all': 'All notifications',
  'row.documentCategory': '{category} on this document',
  'row.document': 'Everything about this document',

  'schedule.heading': 'When notifications arrive',
  'schedule.timeZone': 'Time zone',
  'schedule.timeZoneHint': 'A name such as Europe/Berlin or America/New_York: the times below are in it.',
  'schedule.timeZoneIs': 'Now: {zone}.',
  'schedule.keptHeading': 'Snooze and digest',
  'schedule.snoozed':
    '{channels} notifications are snoozed until {until}: they arrive then. The in-app inbox keeps collecting.',
  'schedule.digest':
    '{channels} notifications come together in one message, {cadence, select, weekly {every {day}} other {every day}} at {at}.',
  'schedule.keptNote': 'You change these where you use the service; saving here keeps them.',
  'schedule.quietHeading': 'Quiet hours',
  'schedule.quietNote':
    'During quiet hours, the channels you choose hold notifications back until the quiet hours end (urgent ones still arrive). Quiet hours that end before they start run past midnight.',
  'schedule.rule': 'Quiet hours {n}',
  'schedule.ruleNew': 'Quiet hours {n} (new)',
  'schedule.days': 'Days',
  'schedule.from': 'From',
  'schedule.until': 'Until',
  'schedule.heldBack': 'Held back',
  'schedule.remove': 'Remove these quiet hours',

  'reason.contentType': 'The form must be sent as application/x-www-form-urlencoded or multipart/form-data.',
  'reason.size': 'The form is larger than {bytes} bytes.',
  'reason.encoding': 'The form is not valid UTF-8.',
  'reason.escape': 'The form holds a % that is not followed by two hexadecimal digits.',
  'reason.malformed': 'The form could not be read.',
  'reason.files': 'The form may hold text fields only.',
  'reason.count': 'The form has more than {count} fields.',
  'reason.notOneClick': 'The form must hold {field} exactly once.',
  'reason.unsubscribeFields': 'The form may hold only {field} and scope.',
  'reason.scope': 'The form may hold one scope, which must be one of: {scopes}.',
  'reason.notThisLink': 'This link cannot unsubscribe from that: it is not about a single document or category.',
  'reason.unknownField': 'The form holds a field that is not on the preference page.',
  'reason.value': 'The form holds a value that is not one of the choices.',
  'reason.repeated': 'The form holds a field twice.',
  'reason.dataTooLarge': 'Your data is too large to download here. Ask the sender of your emails for it.',
  'reason.noTimeZoneField': 'The form holds quiet hours without the time zone field.',
  'reason.timeZone': 'The time zone is not one we know: write a name such as Europe/Berlin or America/New_York.',
  'reason.timeZoneSpelled': 'Write the time zone as {zone}.',
  'reason.timeZoneNeeded': 'Quiet hours need a time zone, such as Europe/Berlin.',
  'reason.timeZoneKept': 'Your snooze or digest needs a time zone: keep one.',
  'reason.days': 'Quiet hours {n}: choose at least one day.',
  'reason.times': 'Quiet hours {n}: give a start and an end time, such as 22:00 and 07:00.',
  'reason.sameTimes': 'Quiet hours {n}: the start and the end must differ.',
  'reason.channels': 'Quiet hours {n}: choose at least one channel to hold back.',
  'reason.noFreeMinute': 'Quiet hours leave {channels} no free minute in the week: shorten them.',
  'reason.invalid': 'The quiet hours are not valid.',
} as const;

export type MessageKey = keyof typeof en;
/** A catalog: a message for every key of the English one. */
export type Catalog = Readonly<Record<MessageKey, string>>;
