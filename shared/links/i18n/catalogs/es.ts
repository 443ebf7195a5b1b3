import type { Catalog } from './en.js';

/* The pages' words in Spanish (informal address, as most apps write), in ICU MessageFormat: the keys of en.ts. */
export const es: Catalog = {
  'notFound.title': 'Este enlace no funciona',
  'notFound.body':
    'Puede que el enlace haya caducado o que se haya sustituido por uno más reciente. Usa el enlace de un correo más reciente o cambia la configuración de notificaciones donde uses el servicio.',
  'methodNotAllowed.title': 'Esta solicitud no es compatible',
  'methodNotAllowed.body': 'Esta página solo se puede abrir o enviar con su propio formulario.',
  'tryAgain.title': 'Algo salió mal',
  'tryAgain.body': 'No se ha cambiado nada. Vuelve a intentarlo en un minuto.',
  'brand.support': 'Ayuda y soporte',
  'brand.privacy': 'Política de privacidad',
  'badRequest.title': 'No se ha podido entender esta solicitud',
  'badRequest.body': '{reason} No se ha cambiado nada.',

  'channel.name':
    '{channel, select, inbox {Bandeja de entrada de la aplicación} email {Correo electrónico} other {Slack}}',
  'channel.notifications':
    '{channel, select, inbox {las notificaciones de la bandeja de entrada de la aplicación} email {las notificaciones por correo electrónico} other {las notificaciones de Slack}}',
  'value.name': '{value, select, ALL {Todas las notificaciones} MINE {Solo lo que me afecta} other {Ninguna}}',
  'value.inline': '{value, select, ALL {todas las notificaciones} MINE {solo lo que me afecta} other {ninguna}}',

  'target.documentCategory': '{what} sobre «{category}» en este documento',
  'target.document': '{what} sobre este documento',
  'target.category': '{what} sobre «{category}», en todos los documentos',
  'target.organization': '{what} de esta organización',
  'target.organizationNamed': '{what} de {organization}',

  'unsubscribe.title':
    '{channel, select, inbox {Cancelar la suscripción a las notificaciones de la bandeja de entrada} email {Cancelar la suscripción a las notificaciones por correo} other {Cancelar la suscripción a las notificaciones de Slack}}',
  'unsubscribe.legend': 'Cancelar la suscripción a:',
  'unsubscribe.button': 'Cancelar suscripción',
  'unsubscribe.noLonger': 'Ya no recibirás {target}.',
  'unsubscribe.noLongerExcept': 'Ya no recibirás {target}, salvo {kept}: tu organización las envía siempre.',
  'unsubscribe.lock': 'Tu organización ha configurado {target} como «{value}»: no se puede cambiar aquí.',
  'unsubscribe.elsewhere': '{choose}, o cámbialas donde uses el servicio.',
  'unsubscribe.choose': '<link>Elige qué notificaciones recibes</link>',
  'unsubscribe.chooseInEmail': 'Elige qué notificaciones recibes con el enlace de preferencias del correo',
  'unsubscribed.title': 'Se ha cancelado tu suscripción',
  'unsubscribed.changedMind': '¿Has cambiado de opinión? {choose}.',
  'locked.title': 'No se ha cambiado nada',
  'locked.more': '{choose}.',

  'preferences.title': 'Tu configuración de notificaciones',
  'preferences.saved': 'Se han guardado tus preferencias.',
  'preferences.intro':
    'Elige, para cada tipo de notificación, qué te llega por cada canal. Elige «Predeterminado» para usar el valor predeterminado: la configuración de todo lo demás o la de tu organización. Cada opción indica cuál es ahora. Más abajo: tu zona horaria y tus horas de silencio.',
  'preferences.organization': 'De esta organización',
  'preferences.organizationNamed': 'De {organization}',
  'preferences.document': 'Este documento',
  'preferences.documentNote': 'Esta configuración prevalece sobre la anterior, solo para este documento.',
  'preferences.default': 'Predeterminado: {value}',
  'preferences.locked': '(lo ha fijado tu organización: no se puede cambiar aquí)',
  'preferences.save': 'Guardar',
  'preferences.dataTitle': 'Tus datos',
  'preferences.dataIntro':
    'Todo lo que se guarda aquí sobre tus elecciones, y cómo se hizo cada una, en un solo archivo.',
  'preferences.download': 'Descargar mis datos',
  'row.everythingElse': 'Todo lo demás',
  'row.everythingElseNote':
    'Las notificaciones de cualquier otro tipo, y las de los tipos anteriores que estén en el valor predeterminado.',
  'row.all': 'Todas las notificaciones',
  'row.documentCategory': '{category} en este documento',
  'row.document': 'Todo lo relativo a este documento',

  'schedule.heading': 'Cuándo llegan las notificaciones',
  'schedule.timeZone': 'Zona horaria',
  'schedule.timeZoneHint': 'Un nombre como Europe/Madrid o America/Mexico_City: las horas de abajo están en esa zona.',
  'schedule.timeZoneIs': 'Ahora: {zone}.',
  'schedule.keptHeading': 'Pausa y resumen',
  'schedule.snoozed':
    'Las notificaciones de {channels} están en pausa hasta el {until}: llegarán entonces. La bandeja de entrada de la aplicación las sigue recogiendo.',
  'schedule.digest':
    'Las notificaciones de {channels} se agrupan en un solo mensaje, {cadence, select, weekly {cada {day}} other {todos los días}} a las {at}.',
  'schedule.keptNote': 'Esto se cambia donde uses el servicio; al guardar aquí se conserva.',
  'schedule.quietHeading': 'Horas de silencio',
  'schedule.quietNote':
    'Durante las horas de silencio, los canales que elijas retienen las notificaciones hasta que terminen (las urgentes llegan igualmente). Si terminan antes de empezar, se extienden más allá de la medianoche.',
  'schedule.rule': 'Horas de silencio {n}',
  'schedule.ruleNew': 'Horas de silencio {n} (nuevas)',
  'schedule.days': 'Días',
  'schedule.from': 'Desde',
  'schedule.until': 'Hasta',
  'schedule.heldBack': 'Retenidas',
  'schedule.remove': 'Eliminar estas horas de silencio',

  'reason.contentType': 'El formulario debe enviarse como application/x-www-form-urlencoded o multipart/form-data.',
  'reason.size': 'El formulario supera los {bytes} bytes.',
  'reason.encoding': 'El formulario no está en UTF-8 válido.',
  'reason.escape': 'El formulario contiene un % que no va seguido de dos dígitos hexadecimales.',
  'reason.malformed': 'No se ha podido leer el formulario.',
  'reason.files': 'El formulario solo puede contener campos de texto.',
  'reason.count': 'El formulario tiene más de {count} campos.',
  'reason.notOneClick': 'El formulario debe contener {field} exactamente una vez.',
  'reason.unsubscribeFields': 'El formulario solo puede contener {field} y scope.',
  'reason.scope': 'El formulario puede contener un solo scope, que debe ser uno de estos: {scopes}.',
  'reason.notThisLink':
    'Este enlace no permite cancelar esa suscripción: no se refiere a un solo documento o categoría.',
  'reason.unknownField': 'El formulario contiene un campo que no está en la página de preferencias.',
  'reason.value': 'El formulario contiene un valor que no es ninguna de las opciones.',
  'reason.repeated': 'El formulario contiene un campo repetido.',
  'reason.dataTooLarge':
    'Tus datos son demasiado grandes para descargarlos aquí. Pídeselos al remitente de tus correos.',
  'reason.noTimeZoneField': 'El formulario contiene horas de silencio sin el campo de zona horaria.',
  'reason.timeZone': 'No reconocemos esa zona horaria: escribe un nombre como Europe/Madrid o America/Mexico_City.',
  'reason.timeZoneSpelled': 'Escribe la zona horaria así: {zone}.',
  'reason.timeZoneNeeded': 'Las horas de silencio necesitan una zona horaria, como Europe/Madrid.',
  'reason.timeZoneKept': 'Tu pausa o tu resumen necesitan una zona horaria: conserva una.',
  'reason.days': 'Horas de silencio {n}: elige al menos un día.',
  'reason.times': 'Horas de silencio {n}: indica una hora de inicio y una de fin, como 22:00 y 07:00.',
  'reason.sameTimes': 'Horas de silencio {n}: el inicio y el fin deben ser distintos.',
  'reason.channels': 'Horas de silencio {n}: elige al menos un canal que las retenga.',
  'reason.noFreeMinute': 'Las horas de silencio no dejan ni un minuto libre a la semana a {channels}: acórtalas.',
  'reason.invalid': 'Las horas de silencio no son válidas.',
};
