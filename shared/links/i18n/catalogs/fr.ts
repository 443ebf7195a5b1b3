import type { Catalog } from './en.js';

/* The pages' words in French, in ICU MessageFormat: the keys of en.ts. */
export const fr: Catalog = {
  'notFound.title': 'Ce lien ne fonctionne pas',
  'notFound.body':
    'Le lien a peut-être expiré, ou a été remplacé par un plus récent. Utilisez le lien d’un e-mail plus récent, ou modifiez vos paramètres de notification là où vous utilisez le service.',
  'methodNotAllowed.title': 'Cette requête n’est pas prise en charge',
  'methodNotAllowed.body': 'Cette page peut seulement être ouverte, ou envoyée avec son propre formulaire.',
  'tryAgain.title': 'Un problème est survenu',
  'tryAgain.body': 'Rien n’a été modifié. Veuillez réessayer dans une minute.',
  'brand.support': 'Aide et assistance',
  'brand.privacy': 'Politique de confidentialité',
  'badRequest.title': 'Cette requête n’a pas pu être comprise',
  'badRequest.body': '{reason} Rien n’a été modifié.',

  'channel.name': '{channel, select, inbox {Boîte de réception de l’application} email {E-mail} other {Slack}}',
  'channel.notifications':
    '{channel, select, inbox {les notifications de la boîte de réception de l’application} email {les notifications par e-mail} other {les notifications Slack}}',
  'value.name': '{value, select, ALL {Toutes les notifications} MINE {Seulement ce qui me concerne} other {Aucune}}',
  'value.inline': '{value, select, ALL {toutes les notifications} MINE {seulement ce qui me concerne} other {aucune}}',

  'target.documentCategory': '{what} concernant « {category} » sur ce document',
  'target.document': '{what} concernant ce document',
  'target.category': '{what} concernant « {category} », sur tous les documents',
  'target.organization': '{what} de cette organisation',
  'target.organizationNamed': '{what} envoyées par {organization}',

  'unsubscribe.title':
    '{channel, select, inbox {Se désabonner des notifications de la boîte de réception} email {Se désabonner des notifications par e-mail} other {Se désabonner des notifications Slack}}',
  'unsubscribe.legend': 'Se désabonner de :',
  'unsubscribe.button': 'Se désabonner',
  'unsubscribe.noLonger': 'Vous ne recevrez plus {target}.',
  'unsubscribe.noLongerExcept':
    'Vous ne recevrez plus {target}, sauf pour {kept} : votre organisation les envoie toujours.',
  'unsubscribe.lock': 'Votre organisation a réglé {target} sur « {value} » : ce réglage ne peut pas être modifié ici.',
  'unsubscribe.elsewhere': '{choose}, ou modifiez-les là où vous utilisez le service.',
  'unsubscribe.choose': '<link>Choisissez les notifications que vous recevez</link>',
  'unsubscribe.chooseInEmail':
    'Choisissez les notifications que vous recevez avec le lien vers les préférences de l’e-mail',
  'unsubscribed.title': 'Votre désabonnement est enregistré',
  'unsubscribed.changedMind': 'Vous avez changé d’avis ? {choose}.',
  'locked.title': 'Rien n’a été modifié',
  'locked.more': '{choose}.',

  'preferences.title': 'Vos paramètres de notification',
  'preferences.saved': 'Vos choix sont enregistrés.',
  'preferences.intro':
    'Choisissez, pour chaque type de notification, ce qui vous parvient sur chaque canal. Choisissez « Par défaut » pour appliquer le réglage par défaut : celui de tout le reste, ou celui de votre organisation. Chaque option indique ce qu’il en est actuellement. Plus bas : votre fuseau horaire et vos heures calmes.',
  'preferences.organization': 'De cette organisation',
  'preferences.organizationNamed': 'De la part de {organization}',
  'preferences.document': 'Ce document',
  'preferences.documentNote': 'Ces réglages l’emportent sur ceux du dessus, pour ce document uniquement.',
  'preferences.default': 'Par défaut : {value}',
  'preferences.locked': '(réglé par votre organisation : non modifiable ici)',
  'preferences.save': 'Enregistrer',
  'preferences.dataTitle': 'Vos données',
  'preferences.dataIntro':
    'Tout ce qui est conservé ici sur vos choix, et la façon dont chacun a été fait, en un seul fichier.',
  'preferences.download': 'Télécharger mes données',
  'row.everythingElse': 'Tout le reste',
  'row.everythingElseNote':
    'Les notifications de tout autre type, et celles des types ci-dessus laissés au réglage par défaut.',
  'row.all': 'Toutes les notifications',
  'row.documentCategory': '{category} sur ce document',
  'row.document': 'Tout ce qui concerne ce document',

  'schedule.heading': 'Quand les notifications arrivent',
  'schedule.timeZone': 'Fuseau horaire',
  'schedule.timeZoneHint':
    'Un nom comme Europe/Paris ou America/New_York : les heures ci-dessous s’entendent dans ce fuseau.',
  'schedule.timeZoneIs': 'Actuellement : {zone}.',
  'schedule.keptHeading': 'Pause et résumé',
  'schedule.snoozed':
    'Les notifications ({channels}) sont en pause jusqu’au {until} : elles arriveront à ce moment-là. La boîte de réception de l’application continue de les recueillir.',
  'schedule.digest':
    'Les notifications ({channels}) sont regroupées en un seul message, {cadence, select, weekly {chaque {day}} other {chaque jour}} à {at}.',
  'schedule.keptNote': 'Vous les modifiez là où vous utilisez le service ; enregistrer ici les conserve.',
  'schedule.quietHeading': 'Heures calmes',
  'schedule.quietNote':
    'Pendant les heures calmes, les canaux choisis retiennent les notifications jusqu’à la fin de la période (les notifications urgentes arrivent quand même). Une période qui se termine avant de commencer se prolonge au-delà de minuit.',
  'schedule.rule': 'Heures calmes {n}',
  'schedule.ruleNew': 'Heures calmes {n} (nouvelles)',
  'schedule.days': 'Jours',
  'schedule.from': 'De',
  'schedule.until': 'À',
  'schedule.heldBack': 'Retenues',
  'schedule.remove': 'Supprimer ces heures calmes',

  'reason.contentType':
    'Le formulaire doit être envoyé en application/x-www-form-urlencoded ou en multipart/form-data.',
  'reason.size': 'Le formulaire dépasse {bytes} octets.',
  'reason.encoding': 'Le formulaire n’est pas en UTF-8 valide.',
  'reason.escape': 'Le formulaire contient un % qui n’est pas suivi de deux chiffres hexadécimaux.',
  'reason.malformed': 'Le formulaire n’a pas pu être lu.',
  'reason.files': 'Le formulaire ne peut contenir que des champs de texte.',
  'reason.count': 'Le formulaire contient plus de {count} champs.',
  'reason.notOneClick': 'Le formulaire doit contenir {field} exactement une fois.',
  'reason.unsubscribeFields': 'Le formulaire ne peut contenir que {field} et scope.',
  'reason.scope': 'Le formulaire peut contenir un seul scope, parmi : {scopes}.',
  'reason.notThisLink':
    'Ce lien ne permet pas de se désabonner de cela : il ne porte pas sur un seul document ou une seule catégorie.',
  'reason.unknownField': 'Le formulaire contient un champ qui ne figure pas sur la page des préférences.',
  'reason.value': 'Le formulaire contient une valeur qui ne fait pas partie des choix.',
  'reason.repeated': 'Le formulaire contient deux fois le même champ.',
  'reason.dataTooLarge':
    'Vos données sont trop volumineuses pour être téléchargées ici. Demandez-les à l’expéditeur de vos e-mails.',
  'reason.noTimeZoneField': 'Le formulaire contient des heures calmes sans le champ du fuseau horaire.',
  'reason.timeZone': 'Ce fuseau horaire nous est inconnu : indiquez un nom comme Europe/Paris ou America/New_York.',
  'reason.timeZoneSpelled': 'Écrivez le fuseau horaire ainsi : {zone}.',
  'reason.timeZoneNeeded': 'Les heures calmes nécessitent un fuseau horaire, comme Europe/Paris.',
  'reason.timeZoneKept': 'Votre pause ou votre résumé nécessite un fuseau horaire : conservez-en un.',
  'reason.days': 'Heures calmes {n} : choisissez au moins un jour.',
  'reason.times': 'Heures calmes {n} : indiquez une heure de début et une heure de fin, comme 22:00 et 07:00.',
  'reason.sameTimes': 'Heures calmes {n} : le début et la fin doivent être différents.',
  'reason.channels': 'Heures calmes {n} : choisissez au moins un canal à mettre en attente.',
  'reason.noFreeMinute':
    'Les heures calmes ne laissent aucune minute libre dans la semaine pour {channels} : raccourcissez-les.',
  'reason.invalid': 'Les heures calmes ne sont pas valides.',
};
