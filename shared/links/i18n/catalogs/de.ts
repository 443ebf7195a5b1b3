import type { Catalog } from './en.js';

/* The pages' words in German (formal address), in ICU MessageFormat: the keys of en.ts. */
export const de: Catalog = {
  'notFound.title': 'Dieser Link funktioniert nicht',
  'notFound.body':
    'Der Link ist vielleicht abgelaufen oder wurde durch einen neueren ersetzt. Verwenden Sie den Link aus einer neueren E-Mail oder ändern Sie Ihre Benachrichtigungseinstellungen dort, wo Sie den Dienst nutzen.',
  'methodNotAllowed.title': 'Diese Anfrage wird nicht unterstützt',
  'methodNotAllowed.body': 'Diese Seite kann nur geöffnet oder über ihr eigenes Formular gesendet werden.',
  'tryAgain.title': 'Etwas ist schiefgelaufen',
  'tryAgain.body': 'Es wurde nichts geändert. Bitte versuchen Sie es in einer Minute noch einmal.',
  'brand.support': 'Hilfe und Support',
  'brand.privacy': 'Datenschutzerklärung',
  'badRequest.title': 'Diese Anfrage konnte nicht verarbeitet werden',
  'badRequest.body': '{reason} Es wurde nichts geändert.',

  'channel.name': '{channel, select, inbox {Postfach in der App} email {E-Mail} other {Slack}}',
  'channel.notifications':
    '{channel, select, inbox {Benachrichtigungen im Postfach der App} email {E-Mail-Benachrichtigungen} other {Slack-Benachrichtigungen}}',
  'value.name': '{value, select, ALL {Alle Benachrichtigungen} MINE {Nur was mich betrifft} other {Keine}}',
  'value.inline': '{value, select, ALL {alle Benachrichtigungen} MINE {nur was mich betrifft} other {keine}}',

  'target.documentCategory': '{what} zu „{category}“ in diesem Dokument',
  'target.document': '{what} zu diesem Dokument',
  'target.category': '{what} zu „{category}“ in allen Dokumenten',
  'target.organization': '{what} dieser Organisation',
  'target.organizationNamed': '{what} von {organization}',

  'unsubscribe.title':
    '{channel, select, inbox {Benachrichtigungen im Postfach der App abbestellen} email {E-Mail-Benachrichtigungen abbestellen} other {Slack-Benachrichtigungen abbestellen}}',
  'unsubscribe.legend': 'Abbestellen:',
  'unsubscribe.button': 'Abbestellen',
  'unsubscribe.noLonger': 'Sie erhalten keine {target} mehr.',
  'unsubscribe.noLongerExcept':
    'Sie erhalten keine {target} mehr, außer zu {kept}: Diese sendet Ihre Organisation immer.',
  'unsubscribe.lock': 'Ihre Organisation hat für {target} „{value}“ festgelegt: Das lässt sich hier nicht ändern.',
  'unsubscribe.elsewhere': '{choose} – oder ändern Sie das dort, wo Sie den Dienst nutzen.',
  'unsubscribe.choose': '<link>Wählen Sie, welche Benachrichtigungen Sie erhalten</link>',
  'unsubscribe.chooseInEmail':
    'Wählen Sie über den Link zu den Einstellungen in der E-Mail, welche Benachrichtigungen Sie erhalten',
  'unsubscribed.title': 'Sie haben sich abgemeldet',
  'unsubscribed.changedMind': 'Doch anders entschieden? {choose}.',
  'locked.title': 'Es wurde nichts geändert',
  'locked.more': '{choose}.',

  'preferences.title': 'Ihre Benachrichtigungseinstellungen',
  'preferences.saved': 'Ihre Auswahl ist gespeichert.',
  'preferences.intro':
    'Legen Sie für jede Art von Benachrichtigung fest, was Sie auf welchem Kanal erreicht. Mit „Standard“ gilt die Voreinstellung: die Einstellung für alles Übrige oder die Ihrer Organisation. Jede Option zeigt, was gerade gilt. Weiter unten: Ihre Zeitzone und Ruhezeiten.',
  'preferences.organization': 'Von dieser Organisation',
  'preferences.organizationNamed': 'Von {organization}',
  'preferences.document': 'Dieses Dokument',
  'preferences.documentNote': 'Diese Einstellungen haben Vorrang vor den obigen, nur für dieses Dokument.',
  'preferences.default': 'Standard: {value}',
  'preferences.locked': '(von Ihrer Organisation festgelegt: hier nicht änderbar)',
  'preferences.save': 'Speichern',
  'preferences.dataTitle': 'Ihre Daten',
  'preferences.dataIntro':
    'Alles, was hier über Ihre Auswahl gespeichert ist, und wie sie getroffen wurde, als eine Datei.',
  'preferences.download': 'Meine Daten herunterladen',
  'row.everythingElse': 'Alles Übrige',
  'row.everythingElseNote':
    'Benachrichtigungen jeder anderen Art sowie der oben genannten Arten, die auf „Standard“ stehen.',
  'row.all': 'Alle Benachrichtigungen',
  'row.documentCategory': '{category} in diesem Dokument',
  'row.document': 'Alles zu diesem Dokument',

  'schedule.heading': 'Wann Benachrichtigungen ankommen',
  'schedule.timeZone': 'Zeitzone',
  'schedule.timeZoneHint': 'Ein Name wie Europe/Berlin oder America/New_York: Die Zeiten unten gelten in dieser Zone.',
  'schedule.timeZoneIs': 'Derzeit: {zone}.',
  'schedule.keptHeading': 'Pausieren und Zusammenfassung',
  'schedule.snoozed':
    'Benachrichtigungen per {channels} sind bis {until} pausiert und kommen dann an. Das Postfach in der App sammelt weiter.',
  'schedule.digest':
    'Benachrichtigungen per {channels} kommen gesammelt in einer Nachricht, {cadence, select, weekly {jeden {day}} other {jeden Tag}} um {at}.',
  'schedule.keptNote': 'Diese ändern Sie dort, wo Sie den Dienst nutzen; beim Speichern hier bleiben sie erhalten.',
  'schedule.quietHeading': 'Ruhezeiten',
  'schedule.quietNote':
    'Während der Ruhezeiten halten die gewählten Kanäle Benachrichtigungen zurück, bis die Ruhezeit endet (dringende kommen trotzdem an). Endet eine Ruhezeit vor ihrem Beginn, reicht sie über Mitternacht hinaus.',
  'schedule.rule': 'Ruhezeit {n}',
  'schedule.ruleNew': 'Ruhezeit {n} (neu)',
  'schedule.days': 'Tage',
  'schedule.from': 'Von',
  'schedule.until': 'Bis',
  'schedule.heldBack': 'Zurückgehalten',
  'schedule.remove': 'Diese Ruhezeit entfernen',

  'reason.contentType':
    'Das Formular muss als application/x-www-form-urlencoded oder multipart/form-data gesendet werden.',
  'reason.size': 'Das Formular ist größer als {bytes} Byte.',
  'reason.encoding': 'Das Formular ist kein gültiges UTF-8.',
  'reason.escape': 'Das Formular enthält ein %, auf das keine zwei Hexadezimalziffern folgen.',
  'reason.malformed': 'Das Formular konnte nicht gelesen werden.',
  'reason.files': 'Das Formular darf nur Textfelder enthalten.',
  'reason.count': 'Das Formular hat mehr als {count} Felder.',
  'reason.notOneClick': 'Das Formular muss {field} genau einmal enthalten.',
  'reason.unsubscribeFields': 'Das Formular darf nur {field} und scope enthalten.',
  'reason.scope': 'Das Formular darf einen scope enthalten, und zwar einen von: {scopes}.',
  'reason.notThisLink':
    'Mit diesem Link lässt sich das nicht abbestellen: Er betrifft kein einzelnes Dokument und keine einzelne Kategorie.',
  'reason.unknownField': 'Das Formular enthält ein Feld, das es auf der Einstellungsseite nicht gibt.',
  'reason.value': 'Das Formular enthält einen Wert, der keine der Auswahlmöglichkeiten ist.',
  'reason.repeated': 'Das Formular enthält ein Feld doppelt.',
  'reason.dataTooLarge':
    'Ihre Daten sind zu groß, um sie hier herunterzuladen. Fragen Sie den Absender Ihrer E-Mails danach.',
  'reason.noTimeZoneField': 'Das Formular enthält Ruhezeiten ohne das Feld für die Zeitzone.',
  'reason.timeZone':
    'Diese Zeitzone kennen wir nicht: Geben Sie einen Namen wie Europe/Berlin oder America/New_York ein.',
  'reason.timeZoneSpelled': 'Schreiben Sie die Zeitzone als {zone}.',
  'reason.timeZoneNeeded': 'Ruhezeiten brauchen eine Zeitzone, etwa Europe/Berlin.',
  'reason.timeZoneKept': 'Ihre Pause oder Zusammenfassung braucht eine Zeitzone: Behalten Sie eine.',
  'reason.days': 'Ruhezeit {n}: Wählen Sie mindestens einen Tag.',
  'reason.times': 'Ruhezeit {n}: Geben Sie eine Anfangs- und eine Endzeit an, etwa 22:00 und 07:00.',
  'reason.sameTimes': 'Ruhezeit {n}: Anfang und Ende müssen sich unterscheiden.',
  'reason.channels': 'Ruhezeit {n}: Wählen Sie mindestens einen Kanal, der zurückhält.',
  'reason.noFreeMinute': 'Die Ruhezeiten lassen {channels} keine freie Minute in der Woche: Verkürzen Sie sie.',
  'reason.invalid': 'Die Ruhezeiten sind nicht gültig.',
};
