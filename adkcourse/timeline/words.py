"""The picture's words in each course language: lane titles, headings, legend, notes.

Why a table here and not the quiz's messages: these words are drawn into an SVG, not shown in
a widget, and the picture must follow the notebook's language the way the quiz does (the
translated lessons run the very same ``timeline(...)`` cell). ADK names (agent and tool names,
state keys, ``user:``...) are never translated: the student meets them in the code.
"""

from __future__ import annotations

from typing import Optional

WORDS: dict[str, dict[str, str]] = {
  "en": {
    "user": "user", "agent": "agent", "tool": "tool",
    "text": "text", "tool call": "tool call", "tool result": "tool result",
    "state update": "state update", "compaction": "compaction summary", "rewind": "rewind",
    "transfer": "transfer", "control": "control",
    "scope.session": "session", "scope.user": "user: (every session of the user)",
    "scope.app": "app: (every user of the app)", "scope.temp": "temp: (this invocation only)",
    "events": "events", "state": "state after each event", "start": "before",
    "stored": "stored now", "invocation": "invocation", "no events": "no events",
    "folded": "{runs} runs of events that write no state are folded: {events} events",
    "fold mark": "N events folded into one mark",
    "dropped": "temp: write, dropped before storing (held for the invocation)",
    "memory only": "in memory only", "differs": "≠ stored: {keys}",
    "replaces": "replaces the other's value", "written": "written by this event",
    "held": "value held", "summarised": "summarised", "undone": "undone",
    "shared": "shared", "title": "session {session}", "titles": "sessions {session}",
    "commit": "appends in commit order",
    "compare": "two sessions on one time axis", "and more": "and {n} more",
    "summary": "<timeline: {events} events{folded}, {lanes} lanes, {keys} state keys>",
    "summary folded": ", {n} folded",
  },
  "fr": {
    "user": "utilisateur", "agent": "agent", "tool": "outil",
    "text": "texte", "tool call": "appel d'outil", "tool result": "résultat d'outil",
    "state update": "mise à jour d'état", "compaction": "résumé de compaction",
    "rewind": "retour arrière", "transfer": "transfert", "control": "contrôle",
    "scope.session": "session", "scope.user": "user: (toutes les sessions de l'utilisateur)",
    "scope.app": "app: (tous les utilisateurs de l'app)",
    "scope.temp": "temp: (cette invocation seulement)",
    "events": "événements", "state": "état après chaque événement", "start": "avant",
    "stored": "stocké", "invocation": "invocation", "no events": "aucun événement",
    "folded": "{runs} suites d'événements sans écriture d'état repliées : {events} événements",
    "fold mark": "N événements repliés en une marque",
    "dropped": "écriture temp: retirée avant stockage (gardée pendant l'invocation)",
    "memory only": "en mémoire seulement", "differs": "≠ stocké : {keys}",
    "replaces": "remplace la valeur de l'autre", "written": "écrit par cet événement",
    "held": "valeur gardée", "summarised": "résumé", "undone": "annulé",
    "shared": "partagé", "title": "session {session}", "titles": "sessions {session}",
    "commit": "ajouts dans l'ordre d'écriture", "compare": "deux sessions sur un même axe",
    "and more": "et {n} de plus",
    "summary": "<frise : {events} événements{folded}, {lanes} lignes, {keys} clés d'état>",
    "summary folded": ", {n} repliés",
  },
  "id": {
    "user": "pengguna", "agent": "agen", "tool": "alat",
    "text": "teks", "tool call": "panggilan alat", "tool result": "hasil alat",
    "state update": "pembaruan state", "compaction": "ringkasan compaction",
    "rewind": "rewind", "transfer": "transfer", "control": "kontrol",
    "scope.session": "session", "scope.user": "user: (semua session pengguna ini)",
    "scope.app": "app: (semua pengguna app)", "scope.temp": "temp: (invocation ini saja)",
    "events": "event", "state": "state setelah setiap event", "start": "awal",
    "stored": "tersimpan", "invocation": "invocation", "no events": "tidak ada event",
    "folded": "{runs} rangkaian event tanpa penulisan state dilipat: {events} event",
    "fold mark": "N event dilipat menjadi satu tanda",
    "dropped": "penulisan temp:, dibuang sebelum disimpan (ada selama invocation)",
    "memory only": "hanya di memori", "differs": "≠ tersimpan: {keys}",
    "replaces": "menimpa nilai yang lain", "written": "ditulis oleh event ini",
    "held": "nilai bertahan", "summarised": "diringkas", "undone": "dibatalkan",
    "shared": "bersama", "title": "session {session}", "titles": "session {session}",
    "commit": "penambahan sesuai urutan commit", "compare": "dua session pada satu sumbu waktu",
    "and more": "dan {n} lagi",
    "summary": "<timeline: {events} event{folded}, {lanes} jalur, {keys} kunci state>",
    "summary folded": ", {n} dilipat",
  },
}


def resolve(lang: Optional[str] = None) -> str:
  """The code of the picture's language: ``lang`` itself, or the notebook's as the quiz decides
  it (``adkcourse.quiz.language``: the notebook's folder, ``$JPY_SESSION_NAME``,
  ``$ADKCOURSE_LANG``). An unknown code raises ``ValueError``, as for the quiz.

  Imported late: the quiz package pulls in widgets, and a picture drawn from a script with
  ``lang="en"`` should not pay for them.
  """
  if lang in WORDS:
    return lang
  from adkcourse.quiz.language import resolve_language

  code = resolve_language(lang)  # "fr-FR" -> "fr"
  return code if code in WORDS else "en"
